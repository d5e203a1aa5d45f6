import winston from 'winston';
import { isoNow } from './iso-now.js';
import type { LogFields, LogLevel } from './logger.js';

/** Where winston keeps a line's finished text (triple-beam's MESSAGE), which transports write. */
export const MESSAGE = Symbol.for('message');

/** What the logger hands winston: the line's level and message, and the caller's fields beside them. */
export interface LineInfo {
  level: LogLevel;
  message: string;
  fields: LogFields | undefined;
}

/**
 * Callers log names and outcomes, never secrets; redaction is the safety net for a field that slips in. It
 * applies to the fields of the line itself, which is where the service puts everything it logs.
 */
const SECRET_FIELDS = /password|cookie|token|secret/i;

/**
 * A winston format that turns a LineInfo into its JSON line, one object:
 * {"level":"info","message":"call",…fields,"timestamp":"2026-01-01T12:00:00.000Z"}. Secret-like fields with
 * a string value read "[redacted]". The line's own level, message and timestamp win over caller fields of the
 * same name, which are left out. It stringifies one plain object built in a single pass over the fields, and
 * leaves out winston's Symbol-keyed bookkeeping.
 */
export const jsonLine = winston.format((info) => {
  const { fields } = info as unknown as LineInfo;
  const line: Record<string, unknown> = { level: info.level, message: info.message };
  for (const key in fields) {
    if (key === 'level' || key === 'message' || key === 'timestamp') continue;
    const value = fields[key];
    line[key] = typeof value === 'string' && SECRET_FIELDS.test(key) ? '[redacted]' : value;
  }
  line.timestamp = isoNow();
  info[MESSAGE] = JSON.stringify(line);
  return info;
});
