/** The Set-Cookie lines of a response, as supertest and node:http give them. */

/** What carries a response's headers as node:http parses them: supertest's responses and the raw ones alike. */
interface WithHeaders {
  headers: { 'set-cookie'?: string[] };
}

export function setCookies(res: WithHeaders): string[] {
  return res.headers['set-cookie'] ?? [];
}

/** The Set-Cookie line for this cookie name. */
export function setCookie(res: WithHeaders, name: string): string | undefined {
  return setCookies(res).find((line) => line.startsWith(`${name}=`));
}

/** The value a Set-Cookie line sets, URL-decoded; '' for no line. */
export function cookieValue(line: string | undefined): string {
  return decodeURIComponent(/^[^=]+=([^;]*)/.exec(line ?? '')?.[1] ?? '');
}
