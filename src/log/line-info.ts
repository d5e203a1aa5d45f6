import type { LogFields, LogLevel } from './logger.js';

/** Where winston keeps a line's finished text (triple-beam's MESSAGE), which transports write. */
export const MESSAGE = Symbol.for('message');

/** What the logger hands winston: the line's level and message, and the caller's fields beside them. */
export interface LineInfo {
  level: LogLevel;
  message: string;
  fields: LogFields | undefined;
}

/** The line's own keys: a caller's field of the same name is left out, whatever the format. */
export const isOwnKey = (key: string): boolean => key === 'level' || key === 'message' || key === 'timestamp';

/**
 * Callers log names and outcomes, never secrets; redaction is the safety net for a field that slips in. It
 * applies to the fields of the line itself, which is where the service puts everything it logs.
 */
const SECRET_FIELDS = /password|cookie|token|secret/i;

/** A field's value as every format writes it: "[redacted]" for a string under a secret-like name. */
export const redacted = (key: string, value: unknown): unknown => (typeof value === 'string' && SECRET_FIELDS.test(key) ? '[redacted]' : value);
