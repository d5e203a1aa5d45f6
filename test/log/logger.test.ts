/**
 * The log lines: one JSON object per line with level, message, the fields and a timestamp; secret fields
 * redacted; batched per turn of the event loop; on stdout, what is pending is written when the process exits.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LineBatcher } from '../../src/log/line-batcher.js';
import { createLogger } from '../../src/log/logger.js';

const run = promisify(execFile);

function recorder() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, stream: { write: (text: string) => lines.push(JSON.parse(text) as Record<string, unknown>) } };
}

describe('the logger', () => {
  it('writes one JSON line per call with level, message, fields and an ISO timestamp, from its level up', () => {
    const { lines, stream } = recorder();
    const logger = createLogger('info', stream);
    logger.info('call', { binding: 'httpget', status: 200 });
    logger.log('warn', 'slow', { ms: 12 });
    logger.debug('below the level');
    expect(lines).toEqual([
      { level: 'info', message: 'call', binding: 'httpget', status: 200, timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) },
      { level: 'warn', message: 'slow', ms: 12, timestamp: expect.any(String) },
    ]);
  });

  it('redacts fields named like secrets', () => {
    const { lines, stream } = recorder();
    createLogger('debug', stream).error('oops', { securityPassword: 'hunter2', loginCookie: 'c', token: 't', clientSecret: 's', caller: 'shop' });
    expect(lines[0]).toMatchObject({ securityPassword: '[redacted]', loginCookie: '[redacted]', token: '[redacted]', clientSecret: '[redacted]', caller: 'shop' });
  });

  it('writes nothing at level silent', () => {
    const { lines, stream } = recorder();
    createLogger('silent', stream).error('not even this');
    expect(lines).toEqual([]);
  });

  it('through a LineBatcher, the lines of one turn of the event loop go out in one write, in order', async () => {
    const writes: string[] = [];
    const logger = createLogger('info', new LineBatcher({ write: (text: string) => writes.push(text) }));
    logger.info('one');
    logger.warn('two');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    logger.info('three');
    await new Promise((resolve) => setImmediate(resolve));
    const messages = (text: string | undefined) => (text ?? '').trim().split('\n').map((line) => (JSON.parse(line) as { message: string }).message);
    expect(writes).toHaveLength(2);
    expect(messages(writes[0])).toEqual(['one', 'two']);
    expect(messages(writes[1])).toEqual(['three']);
  });

  it('on stdout, writes what is pending when the process exits at once', async () => {
    const logger = fileURLToPath(new URL('../../dist/log/logger.js', import.meta.url));
    const script = `const { createLogger } = await import(${JSON.stringify(logger)}); const log = createLogger('info'); for (let i = 0; i < 500; i++) log.info('line', { i }); process.exit(3);`;
    const child = await run(process.execPath, ['--input-type=module', '-e', script]).catch((error: { code: number; stdout: string }) => error);
    expect('code' in child ? child.code : 0).toBe(3);
    const lines = child.stdout.trim().split('\n').map((line) => JSON.parse(line) as { i: number });
    expect(lines.map((line) => line.i)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });
});
