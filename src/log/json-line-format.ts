import winston from 'winston';
import { isoNow } from './iso-now.js';
import { isOwnKey, MESSAGE, redacted, type LineInfo } from './line-info.js';

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
    if (!isOwnKey(key)) line[key] = redacted(key, fields[key]);
  }
  line.timestamp = isoNow();
  info[MESSAGE] = JSON.stringify(line);
  return info;
});
