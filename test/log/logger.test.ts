/**
 * The log lines: one JSON object per line with level, message, the fields and a timestamp, written through
 * winston; levels filter, silent logs nothing; secret fields redacted; the line's own keys win over fields of
 * the same name; batched per turn of the event loop; on stdout, what is pending is written when the process
 * exits.
 */
import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import winston from 'winston';
import { LineBatcher } from '../../src/log/line-batcher.js';
import { createLogger, type LogLevel } from '../../src/log/logger.js';
import { nextTurn } from '../helpers/wait.js';
import { compileLog } from './compiled-log.js';

const run = promisify(execFile);
const LEVELS: LogLevel[] = ['error', 'warn', 'info', 'debug'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function recorder() {
  const writes: string[] = [];
  const parsed = () => writes.map((text) => JSON.parse(text) as Record<string, unknown>);
  return { writes, parsed, stream: { write: (text: string) => writes.push(text) } };
}

describe('the logger', () => {
  it('writes one JSON line per call: level, message, the fields in their order, then an ISO timestamp', () => {
    const { writes, parsed, stream } = recorder();
    const before = Date.now();
    createLogger('info', stream).info('call', { binding: 'httpget', status: 200, latencyMs: 0.1, ok: true, caller: null });
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^\{.*\}\n$/);
    expect(writes[0]?.indexOf('\n')).toBe((writes[0]?.length ?? 0) - 1);
    const [line] = parsed();
    expect(Object.keys(line ?? {})).toEqual(['level', 'message', 'binding', 'status', 'latencyMs', 'ok', 'caller', 'timestamp']);
    expect(line).toEqual({ level: 'info', message: 'call', binding: 'httpget', status: 200, latencyMs: 0.1, ok: true, caller: null, timestamp: expect.stringMatching(ISO) });
    expect(Date.parse(line?.timestamp as string)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(line?.timestamp as string)).toBeLessThanOrEqual(Date.now());
  });

  it('writes only level, message and timestamp for a line without fields, and none of winston\'s own keys', () => {
    const { writes, parsed, stream } = recorder();
    const logger = createLogger('debug', stream);
    logger.info('plain');
    logger.log('warn', 'plain too', {});
    expect(parsed().map((line) => Object.keys(line))).toEqual([
      ['level', 'message', 'timestamp'],
      ['level', 'message', 'timestamp'],
    ]);
    expect(writes.join('')).not.toMatch(/splat|fields|Symbol/);
  });

  it('writes each line to a given stream at once, in order', () => {
    const { parsed, stream } = recorder();
    const logger = createLogger('info', stream);
    for (let i = 0; i < 5; i++) {
      logger.info('line', { i });
      expect(parsed()).toHaveLength(i + 1);
    }
    expect(parsed().map((line) => line.i)).toEqual([0, 1, 2, 3, 4]);
  });

  it.each([
    ['error', ['error']],
    ['warn', ['error', 'warn']],
    ['info', ['error', 'warn', 'info']],
    ['debug', ['error', 'warn', 'info', 'debug']],
  ])('at level %s writes the lines of %j, through their methods and through log()', (level, written) => {
    const { parsed, stream } = recorder();
    const logger = createLogger(level, stream);
    for (const name of LEVELS) logger[name](`${name}()`, { via: 'method' });
    for (const name of LEVELS) logger.log(name, `log(${name})`, { via: 'log' });
    expect(parsed().map(({ level, message, via }) => ({ level, message, via }))).toEqual([
      ...written.map((name) => ({ level: name, message: `${name}()`, via: 'method' })),
      ...written.map((name) => ({ level: name, message: `log(${name})`, via: 'log' })),
    ]);
  });

  it('writes nothing at level silent', async () => {
    const { writes, stream } = recorder();
    const logger = createLogger('silent', stream);
    for (const name of LEVELS) logger[name]('not even this', { n: 1 });
    for (const name of LEVELS) logger.log(name, 'nor this');
    await nextTurn();
    expect(writes).toEqual([]);
  });

  it.each([
    ['info', ['debug']],
    ['silent', LEVELS],
  ] as Array<[string, LogLevel[]]>)('at level %s, a line of %j costs nothing: its fields are not even read', (level, leftOut) => {
    const { writes, stream } = recorder();
    let reads = 0;
    const fields = {
      get costly() {
        reads += 1;
        return 'value';
      },
    };
    const logger = createLogger(level, stream);
    for (const name of leftOut) {
      logger[name]('left out', fields);
      logger.log(name, 'left out', fields);
    }
    expect(reads).toBe(0);
    expect(writes).toEqual([]);
  });

  it('refuses an unknown level', () => {
    expect(() => createLogger('trace', recorder().stream)).toThrow(/unknown log level "trace"/);
  });

  it.each(['password', 'securityPassword', 'PASSWORD', 'cookie', 'loginCookie', 'Set-Cookie', 'token', 'accessToken', 'TOKEN_ID', 'secret', 'clientSecret', 'secretKey'])(
    'redacts a string field named %s, leaving the caller\'s fields as they were',
    (key) => {
      const { writes, parsed, stream } = recorder();
      const fields = { caller: 'shop', [key]: 'hunter2' };
      createLogger('info', stream).info('oops', fields);
      expect(parsed()[0]).toEqual({ level: 'info', message: 'oops', caller: 'shop', [key]: '[redacted]', timestamp: expect.any(String) });
      expect(writes.join('')).not.toContain('hunter2');
      expect(fields).toEqual({ caller: 'shop', [key]: 'hunter2' });
    },
  );

  it('keeps secret-like fields whose value is not a string, and fields named otherwise', () => {
    const { parsed, stream } = recorder();
    createLogger('info', stream).error('counts', { tokenCount: 3, cookieSet: false, passwordless: null, member: 'm-1', outcome: 'token-expired' });
    expect(parsed()[0]).toMatchObject({ tokenCount: 3, cookieSet: false, passwordless: null, member: 'm-1', outcome: 'token-expired' });
  });

  it('keeps its own level, message and timestamp over fields of the same name, which it leaves out', () => {
    const { writes, parsed, stream } = recorder();
    const before = Date.now();
    createLogger('info', stream).warn('real', { level: 'debug', message: 'fake', timestamp: 'yesterday', other: 1 });
    const [line] = parsed();
    expect(line).toEqual({ level: 'warn', message: 'real', other: 1, timestamp: expect.stringMatching(ISO) });
    expect(Object.keys(line ?? {})).toEqual(['level', 'message', 'other', 'timestamp']);
    expect(Date.parse(line?.timestamp as string)).toBeGreaterThanOrEqual(before);
    for (const key of ['level', 'message', 'timestamp']) expect(writes[0]?.split(`"${key}":`)).toHaveLength(2);
  });

  it('writes through a winston logger with a winston transport', () => {
    const createWinston = jest.spyOn(winston, 'createLogger');
    try {
      const { parsed, stream } = recorder();
      createLogger('warn', stream).warn('through winston');
      expect(createWinston).toHaveBeenCalledTimes(1);
      const [options] = createWinston.mock.calls[0] ?? [];
      expect(options).toMatchObject({ levels: { error: 0, warn: 1, info: 2, debug: 3 }, level: 'warn' });
      expect([options?.transports].flat()[0]).toBeInstanceOf((winston as unknown as { Transport: typeof Function }).Transport);
      expect(parsed()).toEqual([expect.objectContaining({ message: 'through winston' })]);
    } finally {
      createWinston.mockRestore();
    }
  });

  it('through a LineBatcher, the lines of one turn of the event loop go out in one write, in order', async () => {
    const writes: string[] = [];
    const logger = createLogger('info', new LineBatcher((text) => writes.push(text), () => {}));
    logger.info('one');
    logger.warn('two');
    logger.debug('left out');
    expect(writes).toEqual([]);
    await nextTurn();
    logger.info('three');
    await nextTurn();
    const messages = (text: string | undefined) => (text ?? '').trim().split('\n').map((line) => (JSON.parse(line) as { message: string }).message);
    expect(writes).toHaveLength(2);
    expect(messages(writes[0])).toEqual(['one', 'two']);
    expect(messages(writes[1])).toEqual(['three']);
  });

  describe('on stdout', () => {
    let compiled: Awaited<ReturnType<typeof compileLog>>;
    beforeAll(async () => {
      compiled = await compileLog();
    });
    afterAll(() => compiled.remove());

    async function child(script: string) {
      const source = `const { createLogger } = await import(${JSON.stringify(join(compiled.dir, 'logger.js'))});\n${script}`;
      const result = await run(process.execPath, ['--input-type=module', '-e', source]).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      return { ...result, lines: result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { message: string; i?: number }) };
    }

    it('writes what is pending when the process exits at once, in order across loggers, then lines of later exit listeners', async () => {
      const { code, stderr, lines } = await child(`
        const one = createLogger('info'), two = createLogger('debug');
        process.on('exit', () => one.info('exiting'));
        for (let i = 0; i < 500; i++) (i % 2 ? two : one).info('line', { i });
        process.exit(3);`);
      expect(stderr).toBe('');
      expect(code).toBe(3);
      expect(lines.slice(0, 500).map((line) => line.i)).toEqual(Array.from({ length: 500 }, (_, i) => i));
      expect(lines.slice(500).map((line) => line.message)).toEqual(['exiting']);
    });

    it('writes the lines of each turn as the process runs', async () => {
      const { code, lines } = await child(`
        const log = createLogger('info');
        log.info('first turn');
        setImmediate(() => { log.warn('second turn'); setTimeout(() => log.error('later'), 5); });`);
      expect(code).toBe(0);
      expect(lines).toEqual([
        expect.objectContaining({ level: 'info', message: 'first turn' }),
        expect.objectContaining({ level: 'warn', message: 'second turn' }),
        expect.objectContaining({ level: 'error', message: 'later' }),
      ]);
    });
  });
});
