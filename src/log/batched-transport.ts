import Transport from 'winston-transport';

/** Where winston keeps a line's finished text (triple-beam's MESSAGE). */
const MESSAGE = Symbol.for('message');

/**
 * A winston transport that gathers the lines of one turn of the event loop and writes them to `destination`
 * in one write, and at exit. Under load a turn answers several calls: one write for all their lines saves a
 * system call per call, and this transport skips the per-line stream and timer work of winston's Stream
 * transport. Lines keep their order; what the process logged before it exits is written before it exits.
 */
export class BatchedTransport extends Transport {
  #pending: string[] = [];
  #scheduled = false;
  readonly #destination: Pick<NodeJS.WritableStream, 'write'>;

  constructor(destination: Pick<NodeJS.WritableStream, 'write'>) {
    super();
    this.#destination = destination;
    process.once('exit', () => this.flush());
  }

  override log(info: Record<symbol, unknown>, next: () => void): void {
    this.#pending.push(`${String(info[MESSAGE])}\n`);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
    next();
  }

  /** Writes what is pending now. */
  flush(): void {
    this.#scheduled = false;
    if (this.#pending.length === 0) return;
    const text = this.#pending.join('');
    this.#pending = [];
    this.#destination.write(text);
  }
}
