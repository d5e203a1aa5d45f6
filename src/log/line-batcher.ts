import { writeSync } from 'node:fs';

/**
 * Log lines gathered during one turn of the event loop and written to a file descriptor in one write at its
 * end, and at exit. Under load a turn answers several calls; one write for all their lines saves a system
 * call per call, where an asynchronous destination would hand every write to another thread. Lines keep their
 * order; what the process logged before it exits is written before it exits.
 */
export class LineBatcher {
  #pending: string[] = [];
  #scheduled = false;

  constructor(private readonly fd: number) {
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
    writeAll(this.fd, text);
  }
}

/** A pipe may take part of a large write (or none, EAGAIN, when non-blocking): write the rest. */
function writeAll(fd: number, text: string): void {
  let rest = Buffer.from(text, 'utf8');
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    }
  }
}
