import winston from 'winston';
import { jsonLine } from './json-line-format.js';
import { LineBatcher } from './line-batcher.js';
import type { LineInfo } from './line-info.js';
import { JSON_LINES, type LineStyle } from './line-style.js';
import { LineTransport, type LineDestination } from './line-transport.js';
import { prettyLine } from './pretty-line-format.js';
import { writeAll } from './write-all.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export type LogFields = Record<string, unknown>;

/**
 * What the service logs through: a line's name and its fields, never a secret. A field named level, message
 * or timestamp is left out: those keys are the line's own.
 */
export interface Logger {
  error(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
  log(level: LogLevel, message: string, fields?: LogFields): void;
}

/** winston's npm levels, from error to debug. */
const LEVELS: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

const isLogLevel = (level: string): level is LogLevel => Object.hasOwn(LEVELS, level);

/** Every logger on stdout shares one batch, so that their lines stay in order. */
let stdout: LineBatcher | undefined;
const stdoutLines = (): LineDestination => (stdout ??= new LineBatcher((text) => writeAll(1, text)));

/**
 * One line per event through a winston logger: JSON lines (jsonLine) unless `style` asks for readable ones
 * (prettyLine); a LineTransport writes them. On stdout a LineBatcher writes the lines of each turn of the event
 * loop at once, and what is pending when the process exits; `stream` (tests) gets them line by line. `level` is
 * one of the levels or 'silent', which logs nothing. The methods of a level below `level` do nothing, so a line
 * that would be left out costs no formatting.
 */
export function createLogger(level: string, stream?: LineDestination, style: LineStyle = JSON_LINES): Logger {
  const silent = level === 'silent';
  if (!silent && !isLogLevel(level)) throw new Error(`unknown log level "${level}"`);
  const logger = winston.createLogger({
    levels: LEVELS,
    level: silent ? 'error' : level,
    silent,
    format: style.format === 'pretty' ? prettyLine({ color: style.color }) : jsonLine(),
    transports: [new LineTransport(stream ?? stdoutLines())],
  });
  const ignore = () => {};
  const at = (name: LogLevel) =>
    logger.isLevelEnabled(name)
      ? (message: string, fields?: LogFields) => {
          logger.log({ level: name, message, fields } satisfies LineInfo);
        }
      : ignore;
  const methods: Record<LogLevel, (message: string, fields?: LogFields) => void> = {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
  };
  return { ...methods, log: (name, message, fields) => methods[name](message, fields) };
}
