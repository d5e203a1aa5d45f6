import winston from 'winston';
import { isoNow } from './iso-now.js';
import { isOwnKey, MESSAGE, redacted, type LineInfo } from './line-info.js';
import type { LogLevel } from './logger.js';

/**
 * Characters a terminal would act on rather than show: C0 and C1 controls (escape sequences, carriage return,
 * line breaks), the Unicode line separators, and the bidirectional overrides that reorder what is shown.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** An unsafe character as a JSON string writes it (\n, \u001b), or as \uXXXX where JSON would leave it as it is. */
const escapeChar = (char: string) => {
  const json = JSON.stringify(char).slice(1, -1);
  return json !== char ? json : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
};
const escaped = (text: string) => text.replace(UNSAFE, escapeChar);

/** A value written as it is: printable ASCII without space, quote, backslash or "=". */
const BARE = /^[!#-<>-[\]-~]+$/;

const quotedIfNeeded = (text: string) => (BARE.test(text) ? text : escaped(JSON.stringify(text)));

function scalarText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    default:
      return undefined;
  }
}

/** A field's text: a scalar as it is, a list of scalars comma-separated; undefined leaves the field out. */
function fieldText(value: unknown): string | undefined {
  if (!Array.isArray(value)) return scalarText(value);
  const items = value.map(scalarText);
  return items.every((item) => item !== undefined) ? items.join(',') : undefined;
}

const LEVEL_COLOURS: Readonly<Record<LogLevel, string>> = { error: '31', warn: '33', info: '32', debug: '36' };
const DIM = '2';
const paint = (code: string, text: string) => `\u001b[${code}m${text}\u001b[0m`;

/**
 * A winston format that turns a LineInfo into one line for people: the time of day (UTC), the level, the
 * message, then the fields as key=value in the caller's order:
 * `12:00:00.000Z INFO  call binding=httpget operation=AuthenticateToken status=200 latencyMs=1.2 …`.
 * Scalars are written as they are, lists of scalars comma-separated: bare when the text is printable ASCII
 * without a space, a quote, a backslash or "=", otherwise quoted as a JSON string, with the characters a
 * terminal would act on escaped. Fields that are null, undefined, objects or lists of objects are left out (the
 * JSON lines have them). Secret-like fields with a string value read [redacted], as in the JSON lines. `color`
 * paints the time, the level and the keys (ANSI).
 */
export const prettyLine = winston.format((info, options?: unknown) => {
  const { level, message, fields } = info as unknown as LineInfo;
  const color = (options as { color?: boolean } | undefined)?.color === true;
  const time = isoNow().slice(11);
  const label = level.toUpperCase().padEnd(5);
  let line = color ? `${paint(DIM, time)} ${paint(LEVEL_COLOURS[level], label)} ${escaped(message)}` : `${time} ${label} ${escaped(message)}`;
  for (const key in fields) {
    if (isOwnKey(key)) continue;
    const text = fieldText(redacted(key, fields[key]));
    if (text === undefined) continue;
    const name = escaped(key);
    line += color ? ` ${paint(DIM, `${name}=`)}${quotedIfNeeded(text)}` : ` ${name}=${quotedIfNeeded(text)}`;
  }
  info[MESSAGE] = line;
  return info;
});
