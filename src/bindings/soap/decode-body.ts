import { isUtf8 } from 'node:buffer';

/**
 * Request bodies decode by the Content-Type charset (UTF-8 when none); a byte-order mark wins, as in XmlReader.
 * Bytes that are not valid in that encoding decode to null. UTF-8, nearly every body, is checked and decoded
 * by Buffer directly; other encodings go through a fatal TextDecoder.
 */
export function decodeXmlBody(body: Buffer, charset: string | undefined): string | null {
  let label = (charset ?? 'utf-8').toLowerCase();
  let bytes = body;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    label = 'utf-8';
    bytes = bytes.subarray(3);
  } else if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    label = 'utf-16le';
  } else if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    label = 'utf-16be';
  }
  if (label === 'utf-8' || label === 'utf8') return isUtf8(bytes) ? bytes.toString('utf8') : null;
  try {
    return new TextDecoder(label, { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}
