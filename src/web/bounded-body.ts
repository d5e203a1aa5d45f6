/** A response body longer than its bound: read no further. */
export class BodyTooLong extends Error {
  constructor(readonly maxBytes: number) {
    super(`longer than ${maxBytes} bytes`);
  }
}

/** A fetch response's body as UTF-8 text, read up to `maxBytes` and no further (rejects with BodyTooLong past it). */
export async function boundedText(response: Response, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for await (const chunk of response.body ?? []) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) throw new BodyTooLong(maxBytes);
      chunks.push(chunk);
    }
  } catch (error) {
    await response.body?.cancel().catch(() => undefined);
    throw error;
  }
  return Buffer.concat(chunks).toString('utf8');
}
