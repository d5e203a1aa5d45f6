import { parseStringPromise } from 'xml2js';

/** An iBridge result's parts: the User's attributes, the first Error's, and the whole root element. */
export interface IBridgeDocument {
  user?: Record<string, string>;
  error?: { Number: string; Description: string };
  root: Record<string, unknown>;
}

/** The inner document as the ISGweb PHP client reads it: the UTF-16 declaration rewritten, then parsed. */
export async function iBridge(result: string | null): Promise<IBridgeDocument> {
  expect(result).toMatch(/^<\?xml version="1\.0" encoding="UTF-16"\?><iBridge>/);
  const doc = await parseStringPromise((result ?? '').replace('encoding="UTF-16"', 'encoding="UTF-8"'));
  const root = doc.iBridge as Record<string, Array<{ $: Record<string, string>; Error?: Array<{ $: { Number: string; Description: string } }> }>>;
  return { user: root.User?.[0]?.$, error: root.Errors?.[0]?.Error?.[0]?.$, root };
}
