/**
 * Strings and the line each was first seen on, for the import's check of ids and usernames repeated in a file:
 * the one thing it keeps per row. Kept out of the V8 heap, in typed arrays and one buffer, because a Map of a
 * million strings is not only larger (about 60 bytes an entry, measured) but also makes V8 let its heap grow to
 * about four times what is live before it collects (measured: 480 MB of heap for 115 MB live at 1,000,000
 * rows). Here an entry takes its text as UTF-8 and 12 bytes, plus 8 to 16 bytes of hash table: 64 MB, room to
 * grow included, for 1,000,000 rows of ids and usernames of 7 and 10 characters (measured).
 *
 * Values are compared as UTF-8, as the stores keep them: two strings that differ only in unpaired surrogates
 * (which UTF-8 cannot hold, and UTF-16 files may) are the same value here, as they would be once stored.
 */
export class FirstSeen {
  /** Open addressing, linear probing: an entry's number + 1, or 0 for a free slot; at most half full. */
  #slots = new Uint32Array(1 << 12);
  /** Per entry, in the order added: its hash, where its UTF-8 text starts in #text, and its line. */
  #hashes = new Uint32Array(1 << 11);
  #starts = new Uint32Array(1 << 11);
  #lines = new Uint32Array(1 << 11);
  #text = Buffer.alloc(1 << 16);
  #textEnd = 0;
  #count = 0;

  get size(): number {
    return this.#count;
  }

  /** The line `value` was first seen on; undefined when it is new, which records it as seen on `line`. */
  firstLine(value: string, line: number): number | undefined {
    const hash = hashOf(value);
    const mask = this.#slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.#slots[slot] ?? 0;
      if (entry === 0) {
        this.#add(value, hash, line, slot);
        return undefined;
      }
      if (this.#hashes[entry - 1] === hash && this.#textOf(entry - 1).equals(Buffer.from(value, 'utf8'))) return this.#lines[entry - 1];
    }
  }

  #textOf(entry: number): Buffer {
    const end = entry + 1 < this.#count ? (this.#starts[entry + 1] ?? 0) : this.#textEnd;
    return this.#text.subarray(this.#starts[entry], end);
  }

  #add(value: string, hash: number, line: number, slot: number): void {
    const entry = this.#count;
    if (entry === this.#hashes.length) {
      this.#hashes = grown(this.#hashes);
      this.#starts = grown(this.#starts);
      this.#lines = grown(this.#lines);
    }
    const bytes = Buffer.byteLength(value, 'utf8');
    if (this.#textEnd + bytes > this.#text.length) {
      const text = Buffer.alloc(Math.max(this.#text.length * 2, this.#textEnd + bytes));
      this.#text.copy(text, 0, 0, this.#textEnd);
      this.#text = text;
    }
    this.#hashes[entry] = hash;
    this.#starts[entry] = this.#textEnd;
    this.#lines[entry] = line;
    this.#textEnd += this.#text.write(value, this.#textEnd, 'utf8');
    this.#slots[slot] = entry + 1;
    this.#count += 1;
    if (this.#count * 2 > this.#slots.length) this.#rehash();
  }

  #rehash(): void {
    const slots = new Uint32Array(this.#slots.length * 2);
    const mask = slots.length - 1;
    for (let entry = 0; entry < this.#count; entry++) {
      let slot = (this.#hashes[entry] ?? 0) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = entry + 1;
    }
    this.#slots = slots;
  }
}

function grown(array: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const larger = new Uint32Array(array.length * 2);
  larger.set(array);
  return larger;
}

/**
 * FNV-1a over the UTF-16 code units, then MurmurHash3's finaliser, so that ids like m1, m2, … spread. Unpaired
 * surrogates hash as U+FFFD, which is what UTF-8 makes of them.
 */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    let unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        hash = Math.imul(hash ^ unit, 0x01000193);
        unit = next;
        i += 1;
      } else {
        unit = 0xfffd;
      }
    }
    hash = Math.imul(hash ^ unit, 0x01000193);
  }
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}
