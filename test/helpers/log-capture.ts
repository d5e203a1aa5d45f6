import { Writable } from 'node:stream';

export interface LogCapture {
  /** Where the logger writes (createLogger's stream). */
  stream: Writable;
  /** Every JSON line written so far, parsed, in order. */
  lines: Array<Record<string, unknown>>;
}

/** A log destination that keeps each JSON line the logger writes, parsed. */
export function logCapture(): LogCapture {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { stream, lines };
}
