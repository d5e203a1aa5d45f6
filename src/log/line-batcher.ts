/** Registers what to do when the process exits: the process's 'exit' event, unless a test passes its own. */
export type OnExit = (flush: () => void) => void;

const onProcessExit: OnExit = (flush) => process.once('exit', flush);

/**
 * Log lines gathered during one turn of the event loop and handed to a synchronous `destination` in one write at
 * its end (setImmediate), and at exit. Under load a turn answers several calls; one write for all their lines
 * saves a system call per call, where an asynchronous destination would hand every write to another thread.
 * Lines keep their order; what the process logged before it exits is written before it exits, and a line logged
 * after that (by a later 'exit' listener) is written at once.
 */
export class LineBatcher {
  #pending: string[] = [];
  #scheduled = false;
  #exited = false;
  readonly #destination: (text: string) => void;

  constructor(destination: (text: string) => void, onExit: OnExit = onProcessExit) {
    this.#destination = destination;
    onExit(() => {
      this.#exited = true;
      this.flush();
    });
  }

  /** Takes one whole line, with its "\n". */
  write(line: string): void {
    if (this.#exited) {
      this.#destination(line);
      return;
    }
    this.#pending.push(line);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes what is pending now. */
  flush(): void {
    this.#scheduled = false;
    if (this.#pending.length === 0) return;
    const text = this.#pending.join('');
    this.#pending = [];
    this.#destination(text);
  }
}
