/**
 * The readable lines (LOG_FORMAT=pretty, or auto on a terminal): time, level, message, then the scalar fields as
 * key=value; colour only when asked, secrets redacted as in the JSON lines, nothing a terminal would act on.
 */
import { jest } from '@jest/globals';
import { createLogger } from '../../src/log/logger.js';
import { JSON_LINES, lineStyle, type LineStyle } from '../../src/log/line-style.js';
import { useFakeTimers } from '../helpers/fake-timers.js';

const PLAIN: LineStyle = { format: 'pretty', color: false };
const COLOURED: LineStyle = { format: 'pretty', color: true };
const ESC = '\u001b';

/** The lines a pretty logger writes, without their "\n". */
function pretty(style: LineStyle = PLAIN, level = 'debug') {
  const writes: string[] = [];
  const logger = createLogger(level, { write: (text: string) => writes.push(text) }, style);
  const lines = () =>
    writes.map((text) => {
      expect(text.endsWith('\n')).toBe(true);
      return text.slice(0, -1);
    });
  return { logger, writes, lines };
}

/** A line without its time of day, which is the only part that changes from run to run. */
const untimed = (line: string | undefined) => (line ?? '').replace(/^\d\d:\d\d:\d\d\.\d{3}Z /, '');

describe('pretty lines', () => {
  it('start with the time of day in UTC, the level padded to five, the message', () => {
    useFakeTimers();
    try {
      jest.setSystemTime(Date.parse('2026-03-04T05:06:07.089Z'));
      const { logger, lines } = pretty();
      logger.info('listening');
      expect(lines()).toEqual(['05:06:07.089Z INFO  listening']);
    } finally {
      jest.useRealTimers();
    }
  });

  it('write a call with its scalar fields as key=value, in the order given, one line', () => {
    const { logger, lines } = pretty();
    logger.info('call', {
      binding: 'httpget',
      operation: 'AuthenticateToken',
      status: 200,
      latencyMs: 1.25,
      client: '127.0.0.1',
      requestId: 'c0ffee-1',
      caller: 'shop',
      outcome: 'signed-in',
      member: 'm-1',
    });
    expect(lines().map(untimed)).toEqual([
      'INFO  call binding=httpget operation=AuthenticateToken status=200 latencyMs=1.25 client=127.0.0.1 requestId=c0ffee-1 caller=shop outcome=signed-in member=m-1',
    ]);
  });

  it('come at every level, filtered as the JSON lines are', () => {
    const { logger, lines } = pretty(PLAIN, 'warn');
    logger.error('e');
    logger.warn('w');
    logger.info('i');
    logger.debug('d');
    expect(lines().map(untimed)).toEqual(['ERROR e', 'WARN  w']);
    const all = pretty(PLAIN, 'debug');
    all.logger.info('i');
    all.logger.debug('d');
    expect(all.lines().map(untimed)).toEqual(['INFO  i', 'DEBUG d']);
  });

  it('leave out null, undefined, objects and lists of objects; write lists of scalars comma-separated', () => {
    const { logger, lines } = pretty();
    logger.info('listening', {
      operation: null,
      member: undefined,
      settings: { PORT: { value: '8080', source: 'default' } },
      report: [{ cut: 1 }],
      operations: ['AuthenticateCookie', 'AuthenticateToken'],
      forced: false,
      count: 10n,
    });
    expect(lines().map(untimed)).toEqual(['INFO  listening operations=AuthenticateCookie,AuthenticateToken forced=false count=10']);
  });

  it('quote a value with a space, a quote, a backslash or "=", and an empty one, as a JSON string', () => {
    const { logger, lines } = pretty();
    logger.warn('refused', { reason: 'too slow', said: 'a "b"', path: 'C:\\x', pair: 'a=b', empty: '', list: ['a b', 'c'], bare: '/Login?x&y' });
    expect(lines().map(untimed)).toEqual([
      'WARN  refused reason="too slow" said="a \\"b\\"" path="C:\\\\x" pair="a=b" empty="" list="a b,c" bare=/Login?x&y',
    ]);
  });

  it('never let a value or a message start a new line or reach the terminal as a control sequence', () => {
    const { logger, writes, lines } = pretty(COLOURED);
    logger.error(`bad\nmessage${ESC}[2J`, { error: `line one\r\nline two ${ESC}]0;title\u0007`, host: `evil\u202ecod.exe`, c1: 'x\u009by' });
    expect(writes).toHaveLength(1);
    const [line] = lines();
    expect(line).not.toMatch(/[\n\r\u0007\u009b\u202e]/);
    // The only escapes left are the colours the formatter added itself.
    expect(line?.replace(/\u001b\[\d+m/g, '')).not.toContain(ESC);
    expect(untimed(line?.replace(/\u001b\[\d+m/g, ''))).toBe(
      'ERROR bad\\nmessage\\u001b[2J error="line one\\r\\nline two \\u001b]0;title\\u0007" host="evil\\u202ecod.exe" c1="x\\u009by"',
    );
  });

  it('redact secret-like fields holding text, as the JSON lines do, and keep the line\'s own keys', () => {
    const { logger, writes, lines } = pretty(COLOURED);
    const fields = { caller: 'shop', securityPassword: 'hunter2', Cookie: 'a=hunter2', accessToken: 'hunter2', clientSecret: 'hunter2', tokenCount: 3, level: 'debug', message: 'fake', timestamp: 'then' };
    logger.info('oops', fields);
    expect(writes.join('')).not.toContain('hunter2');
    expect(untimed(lines()[0]?.replace(/\u001b\[\d+m/g, ''))).toBe(
      'INFO  oops caller=shop securityPassword=[redacted] Cookie=[redacted] accessToken=[redacted] clientSecret=[redacted] tokenCount=3',
    );
    expect(fields.securityPassword).toBe('hunter2');
  });

  it('without colour hold no escape at all', () => {
    const { logger, writes } = pretty(PLAIN);
    for (const level of ['error', 'warn', 'info', 'debug'] as const) logger[level]('line', { key: 'value' });
    expect(writes.join('')).not.toContain(ESC);
  });

  it('with colour paint the time dim, each level its colour, and the keys dim, and nothing else', () => {
    const { logger, lines } = pretty(COLOURED);
    logger.error('e', { status: 500 });
    logger.warn('w');
    logger.info('i');
    logger.debug('d');
    const painted = lines();
    expect(painted[0]).toMatch(/^\u001b\[2m\d\d:\d\d:\d\d\.\d{3}Z\u001b\[0m \u001b\[31mERROR\u001b\[0m e \u001b\[2mstatus=\u001b\[0m500$/);
    expect(painted.slice(1).map((line) => line.replace(/^\u001b\[2m[^\u001b]+\u001b\[0m /, ''))).toEqual([
      '\u001b[33mWARN \u001b[0m w',
      '\u001b[32mINFO \u001b[0m i',
      '\u001b[36mDEBUG\u001b[0m d',
    ]);
  });
});

describe('the line style', () => {
  it.each<[string, 'auto' | 'json' | 'pretty', boolean | undefined, boolean, LineStyle]>([
    ['auto on a terminal: readable and coloured', 'auto', true, false, COLOURED],
    ['auto on a terminal with NO_COLOR: readable, not coloured', 'auto', true, true, PLAIN],
    ['auto on a pipe: JSON', 'auto', false, false, JSON_LINES],
    ['auto on a stream that does not say: JSON', 'auto', undefined, false, JSON_LINES],
    ['pretty on a pipe: readable, never coloured', 'pretty', false, false, PLAIN],
    ['pretty on a terminal: coloured', 'pretty', true, false, COLOURED],
    ['pretty on a terminal with NO_COLOR: not coloured', 'pretty', true, true, PLAIN],
    ['json on a terminal: JSON', 'json', true, false, JSON_LINES],
  ])('%s', (_label, setting, isTTY, noColor, expected) => {
    expect(lineStyle(setting, isTTY === undefined ? {} : { isTTY }, noColor)).toEqual(expected);
  });

  it('JSON_LINES gives the JSON lines, as when no style is given', () => {
    const writes: string[] = [];
    createLogger('info', { write: (text: string) => writes.push(text) }, JSON_LINES).info('call', { status: 200 });
    expect(JSON.parse(writes[0] ?? '')).toEqual({ level: 'info', message: 'call', status: 200, timestamp: expect.any(String) });
  });
});
