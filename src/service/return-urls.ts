import type { Store } from '../store/store.js';

export interface ReturnTarget {
  /** A path on this service, or an absolute http(s) URL on an allowed origin. */
  location: string;
  /** The origin is a partner's registered to receive the session token (`token=…`). */
  appendToken: boolean;
}

/** Anything that parses differently from how it reads (control characters, spaces, backslashes) is refused. */
const SUSPICIOUS = /[\u0000-\u0020\u007f\\]/;
const ABSOLUTE = /^(https?):\/\/([^/?#]*)/i;
const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443' };

/**
 * Where to send the browser after sign-in or sign-out: only to this service or to an origin a caller
 * registered, so that the sign-in page can never be used as an open redirect.
 */
export class ReturnUrlPolicy {
  constructor(
    private readonly store: Store,
    private readonly defaultReturnPath: string,
  ) {}

  /** `ownOrigin` is this service's origin as the browser reached it (scheme://host[:port], normalised). */
  async resolve(raw: string | undefined, ownOrigin: string): Promise<ReturnTarget> {
    const refused = { location: this.defaultReturnPath, appendToken: false };
    if (!raw || SUSPICIOUS.test(raw)) return refused;
    if (raw.startsWith('/')) {
      const path = localPath(raw, ownOrigin);
      return path === null ? refused : { location: path, appendToken: false };
    }
    const url = absoluteUrl(raw);
    if (url === null) return refused;
    if (url.origin === ownOrigin) return { location: url.href, appendToken: false };
    const grants = await this.store.findOriginGrants(url.origin);
    if (grants.length === 0) return refused;
    return { location: url.href, appendToken: grants.some((grant) => grant.receivesToken) };
  }
}

/** The location with `token` set (replacing any token already there), the fragment kept. */
export function withToken(location: string, token: string): string {
  const url = new URL(location);
  url.searchParams.set('token', token);
  return url.href;
}

/**
 * An origin as registered and looked up: scheme://host[:port] as the URL class normalises it (lower-case
 * host, no default port). Null for anything that is not exactly an http(s) origin.
 */
export function normalizeOrigin(raw: string): string | null {
  const text = raw.trim();
  const url = absoluteUrl(text);
  return url !== null && url.pathname === '/' && !/[?#]/.test(text) ? url.origin : null;
}

/** A path on this service; null when resolving it would leave the path (`//host`, `/\host`, dot segments). */
function localPath(raw: string, ownOrigin: string): string | null {
  if (raw.startsWith('//')) return null;
  const url = parse(raw, ownOrigin);
  if (url === null) return null;
  const path = url.pathname + url.search + url.hash;
  // "/.//evil.com" normalises to "//evil.com", which a browser would read as another host.
  return path.startsWith('//') ? null : path;
}

/** An absolute http(s) URL whose host the parser kept as written, apart from letter case and a default port. */
function absoluteUrl(raw: string): URL | null {
  if (SUSPICIOUS.test(raw)) return null;
  const match = ABSOLUTE.exec(raw);
  const scheme = match?.[1]?.toLowerCase();
  const authority = match?.[2]?.toLowerCase();
  if (scheme === undefined || authority === undefined || authority.includes('@')) return null;
  const url = parse(raw);
  if (url === null || url.username || url.password) return null;
  const written = authority.endsWith(`:${DEFAULT_PORTS[scheme]}`) ? authority.slice(0, authority.lastIndexOf(':')) : authority;
  return url.host === written ? url : null;
}

function parse(raw: string, base?: string): URL | null {
  try {
    return new URL(raw, base);
  } catch {
    return null;
  }
}
