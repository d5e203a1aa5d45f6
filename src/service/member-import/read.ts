import { CsvError, parse, type Info } from 'csv-parse';
import { pipeline, Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { ServiceError } from '../errors.js';

/**
 * The file's bytes, from the start, each time it is called: the import reads the file twice (a check, then the
 * import). A Readable from fs.createReadStream will do; an array of buffers too.
 */
export type ImportSource = () => AsyncIterable<Buffer | string> | Iterable<Buffer | string>;

/** One record of the file, and the line it starts on (the header is line 1). */
export interface CsvRow {
  fields: string[];
  line: number;
}

/** Bytes taken from the source so far, for the check's progress. */
export interface ByteCount {
  read: number;
}

/**
 * The longest row, in characters: past it the file is refused. A quote left open would otherwise make the
 * rest of the file one field, held in memory; a real row is a few kilobytes at most.
 */
const MAX_ROW_CHARS = 1_000_000;

/**
 * The file as text: UTF-16 with a byte order mark (as SQL Server and Windows PowerShell tools write it), or
 * else UTF-8, its BOM dropped; line ends made LF, because csv-parse counts the lines of a CRLF file wrong after
 * an empty line. StringDecoder keeps a character split between two chunks whole.
 */
async function* textOf(source: ReturnType<ImportSource>, bytes: ByteCount): AsyncGenerator<string> {
  let head = Buffer.alloc(0);
  let decoder: StringDecoder | undefined;
  // The end of a chunk held back: a CR, whose LF may begin the next chunk, or the first half of a surrogate
  // pair, which Node's UTF-16 decoder hands out alone.
  let held = '';
  const lines = (text: string): string => {
    const all = held + text;
    const last = all.charCodeAt(all.length - 1);
    const hold = last === 0x0d || (last >= 0xd800 && last <= 0xdbff) ? 1 : 0;
    held = all.slice(all.length - hold);
    return all.slice(0, all.length - hold).replace(/\r\n?/g, '\n');
  };
  const start = (): string => {
    decoder = new StringDecoder(head[0] === 0xff && head[1] === 0xfe ? 'utf16le' : 'utf8');
    return decoder.write(head).replace(/^\uFEFF/, '');
  };
  for await (const chunk of source) {
    const bytesOfChunk = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    bytes.read += bytesOfChunk.length;
    let text: string;
    if (decoder) text = decoder.write(bytesOfChunk);
    else {
      // Four bytes tell the byte order mark, and hold the whole of UTF-8's.
      head = Buffer.concat([head, bytesOfChunk]);
      if (head.length < 4) continue;
      text = start();
    }
    const normalised = lines(text);
    if (normalised) yield normalised;
  }
  const rest = lines((decoder ? '' : start()) + (decoder?.end() ?? '')) + held.replace('\r', '\n');
  if (rest) yield rest;
}

/**
 * The records of the file, streamed; a CSV syntax error is MEMBER_IMPORT_INVALID. Without `withLines` (the
 * check, which needs none), every line number is 0 and the parsing is cheaper.
 */
export async function* csvRows(source: ReturnType<ImportSource>, bytes: ByteCount = { read: 0 }, withLines = true): AsyncGenerator<CsvRow> {
  const parser = parse({ relax_column_count: true, skip_empty_lines: true, info: withLines, max_record_size: MAX_ROW_CHARS });
  // An error of either stream reaches the loop below; leaving the loop early closes both.
  const records = pipeline(Readable.from(textOf(source, bytes)), parser, () => {}) as AsyncIterable<{ record: string[]; info: Info } | string[]>;
  try {
    for await (const parsed of records) {
      if (Array.isArray(parsed)) {
        yield { fields: parsed, line: 0 };
        continue;
      }
      const { record, info } = parsed;
      // info.lines is the line a record ends on, and a quoted field may span lines.
      let newlines = 0;
      for (const field of record) if (field.includes('\n')) newlines += field.split('\n').length - 1;
      yield { fields: record, line: info.lines - newlines };
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    // csv-parse names the line where the row grew too long, not the line it began on.
    const hint = error.code === 'CSV_MAX_RECORD_SIZE' ? ' (is a quote left open before it?)' : '';
    throw new ServiceError('MEMBER_IMPORT_INVALID', `${error.message}${hint}`);
  }
}
