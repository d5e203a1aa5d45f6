/**
 * The Forms authentication ticket as System.Web's FormsAuthenticationTicketSerializer writes it (serialized
 * format 1, the only one .NET Framework reads since MS11-100):
 *
 *   0x01 | Version (1 byte) | IssueDateUtc ticks (int64 LE) | 0xFE | ExpirationUtc ticks (int64 LE)
 *   | IsPersistent (0 or 1) | Name | UserData | CookiePath | 0xFF
 *
 * Each string is its length in UTF-16 code units as a 7-bit encoded int (BinaryWriter.Write7BitEncodedInt),
 * then its code units, little-endian: any JavaScript string, lone surrogates included, goes through unchanged.
 * Deserialize refuses, as .NET does, a wrong marker, a persistence byte other than 0 or 1, ticks DateTime cannot
 * hold, a string longer than what is left, and anything after the footer. Every length is checked against the
 * bytes that remain before anything is read, so a declared length costs nothing.
 */
import { ticksInRange } from './ticks.js';

export interface FormsTicket {
  /** FormsAuthenticationTicket.Version: the site's own number, one byte. */
  readonly version: number;
  /** The user name: the member's login. */
  readonly name: string;
  /** IssueDateUtc, in .NET ticks. */
  readonly issueTicks: bigint;
  /** ExpirationUtc, in .NET ticks. */
  readonly expirationTicks: bigint;
  /** Whether the cookie outlives the browser session. */
  readonly isPersistent: boolean;
  readonly userData: string;
  readonly cookiePath: string;
}

const FORMAT_VERSION = 0x01;
const SPACER = 0xfe;
const FOOTER = 0xff;
/** A 7-bit encoded int32 takes at most five bytes; BinaryReader refuses a sixth. */
const MAX_7BIT_BYTES = 5;

function write7BitEncodedInt(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

function binaryString(value: string): Buffer {
  return Buffer.concat([write7BitEncodedInt(value.length), Buffer.from(value, 'utf16le')]);
}

function int64(value: bigint): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64LE(value);
  return bytes;
}

/** The ticket's bytes, as FormsAuthenticationTicketSerializer.Serialize writes them. */
export function serializeTicket(ticket: FormsTicket): Buffer {
  if (!Number.isInteger(ticket.version) || ticket.version < 0 || ticket.version > 0xff) {
    throw new RangeError('A Forms ticket version is one byte: an integer from 0 to 255.');
  }
  if (!ticksInRange(ticket.issueTicks) || !ticksInRange(ticket.expirationTicks)) {
    throw new RangeError('A Forms ticket date must lie between the years 1 and 9999.');
  }
  return Buffer.concat([
    Buffer.from([FORMAT_VERSION, ticket.version]),
    int64(ticket.issueTicks),
    Buffer.from([SPACER]),
    int64(ticket.expirationTicks),
    Buffer.from([ticket.isPersistent ? 1 : 0]),
    binaryString(ticket.name),
    binaryString(ticket.userData),
    binaryString(ticket.cookiePath),
    Buffer.from([FOOTER]),
  ]);
}

/** A reader over the serialized bytes whose every read fails (undefined) rather than run past the end. */
class TicketReader {
  private position = 0;

  constructor(private readonly bytes: Buffer) {}

  get atEnd(): boolean {
    return this.position === this.bytes.length;
  }

  byte(): number | undefined {
    return this.position < this.bytes.length ? this.bytes[this.position++] : undefined;
  }

  int64(): bigint | undefined {
    if (this.bytes.length - this.position < 8) return undefined;
    const value = this.bytes.readBigInt64LE(this.position);
    this.position += 8;
    return value;
  }

  /** BinaryReader.Read7BitEncodedInt, in int32 arithmetic as .NET does it (a fifth byte's high bits fall off). */
  private int7Bit(): number | undefined {
    let value = 0;
    for (let shift = 0; shift < 7 * MAX_7BIT_BYTES; shift += 7) {
      const next = this.byte();
      if (next === undefined) return undefined;
      value |= (next & 0x7f) << shift;
      if ((next & 0x80) === 0) return value;
    }
    return undefined;
  }

  /** A length-prefixed UTF-16LE string, refused when it claims more code units than the bytes left hold. */
  binaryString(): string | undefined {
    const length = this.int7Bit();
    if (length === undefined || length < 0 || length > (this.bytes.length - this.position) / 2) return undefined;
    const end = this.position + length * 2;
    const value = this.bytes.toString('utf16le', this.position, end);
    this.position = end;
    return value;
  }
}

/** The ticket these bytes hold, or undefined when FormsAuthenticationTicketSerializer.Deserialize would refuse them. */
export function deserializeTicket(bytes: Buffer): FormsTicket | undefined {
  const reader = new TicketReader(bytes);
  if (reader.byte() !== FORMAT_VERSION) return undefined;
  const version = reader.byte();
  const issueTicks = reader.int64();
  if (reader.byte() !== SPACER) return undefined;
  const expirationTicks = reader.int64();
  const persistence = reader.byte();
  if (version === undefined || issueTicks === undefined || expirationTicks === undefined) return undefined;
  if (!ticksInRange(issueTicks) || !ticksInRange(expirationTicks)) return undefined;
  if (persistence !== 0 && persistence !== 1) return undefined;
  const name = reader.binaryString();
  const userData = reader.binaryString();
  const cookiePath = reader.binaryString();
  if (name === undefined || userData === undefined || cookiePath === undefined) return undefined;
  if (reader.byte() !== FOOTER || !reader.atEnd) return undefined;
  return { version, name, issueTicks, expirationTicks, isPersistent: persistence === 1, userData, cookiePath };
}
