import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { CliIo } from '../../context.js';
import { CommandError } from '../../errors.js';

/**
 * The new password from the terminal, asked twice and never echoed, or the first line of a pipe. Throws a
 * CommandError when there is none or the two entries differ.
 */
export async function readNewPassword(io: CliIo): Promise<string> {
  const terminal = process.stdin.isTTY === true;
  // In terminal mode readline switches the terminal's echo off and echoes itself, into this sink.
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const reader = createInterface({ input: process.stdin, output: silent, terminal });
  reader.on('SIGINT', () => reader.close());
  const lines = reader[Symbol.asyncIterator]();
  const ask = async (prompt: string): Promise<string | undefined> => {
    if (terminal) io.err(prompt);
    const line = await lines.next();
    if (terminal) io.err('\n');
    return line.done ? undefined : line.value;
  };
  try {
    const password = await ask('New password: ');
    if (password === undefined) throw new CommandError('no password was entered');
    if (terminal && (await ask('Repeat the new password: ')) !== password) throw new CommandError('the two passwords differ');
    return password;
  } finally {
    reader.close();
  }
}
