import winston from 'winston';
import { MESSAGE } from './line-info.js';

/** Where a LineTransport's lines go: each whole line, with its "\n", synchronously and in order. */
export interface LineDestination {
  write(line: string): unknown;
}

/**
 * winston's base transport, winston-transport's TransportStream, which winston exports as `Transport` (its
 * typings declare it as `transport`, which does not exist at run time).
 */
type TransportStream = winston.Logger['transports'][number];
const TransportStream = (winston as unknown as { Transport: new () => TransportStream }).Transport;

/** A winston transport that hands each formatted line (the format's MESSAGE) to `destination`. */
export class LineTransport extends TransportStream {
  readonly #destination: LineDestination;

  constructor(destination: LineDestination) {
    super();
    this.#destination = destination;
  }

  override log(info: winston.Logform.TransformableInfo, next: () => void): void {
    this.#destination.write(`${info[MESSAGE] as string}\n`);
    next();
  }
}
