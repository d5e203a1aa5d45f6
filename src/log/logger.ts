import winston from 'winston';
import { BatchedTransport } from './batched-transport.js';

export type Logger = winston.Logger;

/**
 * JSON lines on stdout: one object per line, readable in a terminal and by log shippers. Callers log
 * names and outcomes, never secrets; the redaction below is the safety net for a field that slips in.
 */
const SECRET_FIELDS = /password|cookie|token|secret/i;

const redact = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (SECRET_FIELDS.test(key) && typeof info[key] === 'string') info[key] = '[redacted]';
  }
  return info;
});

export function createLogger(level: string, stream: Pick<NodeJS.WritableStream, 'write'> = process.stdout): Logger {
  return winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    format: winston.format.combine(redact(), winston.format.timestamp(), winston.format.json()),
    transports: [new BatchedTransport(stream)],
  });
}
