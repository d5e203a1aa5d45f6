/** Request bodies decode by the Content-Type charset (UTF-8 when none); a byte-order mark wins, as in XmlReader. */
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
  try {
    return new TextDecoder(label, { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}
