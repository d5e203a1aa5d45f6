/**
 * Log lines gathered during one turn of the event loop and handed to a synchronous destination in one write at
 * its end, and at exit. Under load a turn answers several calls; one write for all their lines saves a system
 * call per call, where an asynchronous destination would hand every write to another thread. Lines keep their
 * order; what the process logged before it exits is written before it exits.
 */
export class LineBatcher {
  #pending: string[] = [];
  #scheduled = false;

  /** `destination` writes synchronously (pino's SonicBoom with sync: true, which also waits out EAGAIN). */
  constructor(private readonly destination: { write(text: string): unknown }) {
    process.once('exit', () => this.flush());
  }

  write(line: string): boolean {
    this.#pending.push(line);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
    return true;
  }

  /** Writes what is pending now. */
  flush(): void {
    this.#scheduled = false;
    if (this.#pending.length === 0) return;
    const text = this.#pending.join('');
    this.#pending = [];
    this.destination.write(text);
  }
}
