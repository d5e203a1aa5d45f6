/**
 * A member's version as SCIM's ETag (RFC 7644 §3.14): weak, since it names the member's state rather than the
 * bytes of one representation, and compared as such in If-Match and If-None-Match.
 */
export function etagOf(version: number): string {
  return `W/"${version}"`;
}

/** The opaque tags of an If-Match or If-None-Match list, without W/ and quotes; ['*'] for `*`. */
function tags(header: string): string[] {
  return header.split(',').map((item) => {
    const tag = item.trim();
    const strong = tag.startsWith('W/') ? tag.slice(2) : tag;
    return strong.length >= 2 && strong.startsWith('"') && strong.endsWith('"') ? strong.slice(1, -1) : strong;
  });
}

function lists(header: string, version: number): boolean {
  const listed = tags(header);
  return listed.includes('*') || listed.includes(String(version));
}

/** Whether a change may go ahead: no If-Match, or one that lists the member's current version (or is `*`). */
export function ifMatchAllows(header: string | undefined, version: number): boolean {
  return header === undefined || lists(header, version);
}

/** Whether a read may answer 304: an If-None-Match that lists the member's current version. */
export function ifNoneMatchHits(header: string | undefined, version: number): boolean {
  return header !== undefined && lists(header, version);
}
