/**
 * The logger's transport writes the lines of one turn of the event loop in one write, in order, and
 * writes what is pending when the process exits.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLogger } from '../../src/log/logger.js';

const run = promisify(execFile);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function recorder() {
  const writes: string[] = [];
  return { writes, destination: { write: (text: string) => writes.push(text) > 0 } };
}

describe('the log transport', () => {
  it('writes the lines of one turn together, in order, after the turn', async () => {
    const { writes, destination } = recorder();
    const logger = createLogger('info', destination);
    logger.info('first', { n: 1 });
    logger.warn('second', { n: 2 });
    logger.debug('below the level');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toHaveLength(1);
    const lines = (writes[0] ?? '').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 'info', message: 'first', n: 1 }),
      expect.objectContaining({ level: 'warn', message: 'second', n: 2 }),
    ]);
  });

  it('writes each later turn on its own and nothing for a turn without lines', async () => {
    const { writes, destination } = recorder();
    const logger = createLogger('info', destination);
    logger.info('one');
    await nextTurn();
    await nextTurn();
    logger.info('two');
    await nextTurn();
    expect(writes.map((text) => (JSON.parse(text) as { message: string }).message)).toEqual(['one', 'two']);
  });

  it('still redacts secret fields', async () => {
    const { writes, destination } = recorder();
    createLogger('info', destination).info('call', { securityPassword: 'hunter2', token: 'abc' });
    await nextTurn();
    expect(writes.join('')).not.toMatch(/hunter2|abc/);
  });

  it('writes what is pending when the process exits at once', async () => {
    const logger = fileURLToPath(new URL('../../dist/log/logger.js', import.meta.url));
    const script = `const { createLogger } = await import(${JSON.stringify(logger)}); createLogger('info').error('last words'); process.exit(3);`;
    const child = await run(process.execPath, ['--input-type=module', '-e', script]).catch((error: { code: number; stdout: string }) => error);
    expect('code' in child ? child.code : 0).toBe(3);
    expect(JSON.parse(child.stdout)).toEqual(expect.objectContaining({ level: 'error', message: 'last words' }));
  });
});
