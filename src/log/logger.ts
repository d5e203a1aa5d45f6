import winston from 'winston';
import { currentRequestId } from './request-id.js';

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

/**
 * Every line written while a request is served carries its id (X-Request-Id). Winston runs formats
 * synchronously inside the logging call, so the request's async context is still the current one here.
 */
const requestId = winston.format((info) => {
  const id = currentRequestId();
  if (id !== undefined && info.requestId === undefined) info.requestId = id;
  return info;
});

export function createLogger(level: string, stream: NodeJS.WritableStream = process.stdout): Logger {
  return winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    format: winston.format.combine(requestId(), redact(), winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Stream({ stream })],
  });
}
