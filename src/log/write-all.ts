import { writeSync } from 'node:fs';

/** A synchronous write of (part of) a buffer that answers how many bytes it took: fs.writeSync by default. */
export type WriteSync = (fd: number, buffer: Uint8Array) => number;

/** Blocks the thread while a full pipe drains (Atomics.wait on a value that never changes, with a timeout). */
const idle = new Int32Array(new SharedArrayBuffer(4));
const RETRY_AFTER_MS = 1;

/**
 * Writes all of `text` to `fd` before it returns. A pipe may take part of a write: the rest goes in the next
 * one. A full non-blocking pipe answers EAGAIN: the write is tried again after a millisecond for the reader
 * to catch up, rather than in a busy loop. Any other error (EPIPE: the reader has gone) drops what is left,
 * so that losing the log's reader does not stop the service.
 */
export function writeAll(fd: number, text: string, write: WriteSync = writeSync): void {
  let rest = Buffer.from(text, 'utf8');
  while (rest.length > 0) {
    try {
      rest = rest.subarray(write(fd, rest));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      Atomics.wait(idle, 0, 0, RETRY_AFTER_MS);
    }
  }
}
