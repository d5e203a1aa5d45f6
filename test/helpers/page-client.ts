/**
 * A visitor of the sign-in and account pages over HTTP, as a browser without JavaScript: it keeps the cookies
 * the pages set (all of them sent back, whatever their domain, path or Secure: the tests look at the attributes
 * themselves) and reads the forms' hidden fields.
 */
import request from 'supertest';
import { setCookies } from './cookies.js';

export type Page = request.Response;

export class PageClient {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly baseUrl: string,
    private readonly userAgent = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  ) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.#keep(await request(this.baseUrl).get(path).set(this.#headers(headers)));
  }

  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    return this.#keep(await request(this.baseUrl).post(path).type('form').set(this.#headers(headers)).send(fields));
  }

  /** Posts the page's form (by its action, or the first) with its hidden fields, and `fields` on top. */
  async submit(page: Page, fields: Record<string, string>, options: { action?: string; headers?: Record<string, string> } = {}): Promise<Page> {
    const form = formOf(page.text, options.action);
    return this.post(form.action, { ...form.hidden, ...fields }, options.headers);
  }

  /** Opens the sign-in page and signs in with the password. */
  async signIn(login: string, password: string, fields: Record<string, string> = {}, query = ''): Promise<Page> {
    const form = await this.get(`/Login${query}`);
    return this.submit(form, { login, password, ...fields });
  }

  /** Opens the account page and posts its form that goes to `action`. */
  async act(action: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    const page = await this.get('/Account');
    expect(page.status).toBe(200);
    return this.submit(page, fields, { action, headers });
  }

  get loginCookie(): string | undefined {
    return this.cookies.get('.ASPXAUTH');
  }

  #headers(extra: Record<string, string>): Record<string, string> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ');
    return { 'User-Agent': this.userAgent, ...(cookie ? { Cookie: cookie } : {}), ...extra };
  }

  #keep(res: Page): Page {
    for (const line of setCookies(res)) {
      const match = /^([^=]+)=([^;]*)/.exec(line);
      if (!match) continue;
      const [, name = '', value = ''] = match;
      if (value === '' || /Expires=Thu, 01 Jan 1970/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, decodeURIComponent(value));
    }
    return res;
  }
}

/** A browser signed in with the password alone (no second step); throws when the sign-in did not end signed in. */
export async function signedInVisitor(baseUrl: string, login: string, password: string, userAgent?: string): Promise<PageClient> {
  const visitor = new PageClient(baseUrl, userAgent);
  const res = await visitor.signIn(login, password);
  if (res.status !== 303 || !visitor.loginCookie) throw new Error(`sign-in failed: ${res.status}`);
  return visitor;
}

/** The settings the page tests start from: cookies for .example.org, an account locked after three failures. */
export const PAGE_ENV = { COOKIE_DOMAIN: '.example.org', SIGNIN_MAX_FAILURES_PER_ACCOUNT: '3' } as const;

/** HTML text as Mustache escapes it, back to the text. */
export function unescapeHtml(html: string): string {
  return html.replace(/&(#x([0-9a-f]+)|#(\d+)|amp|lt|gt|quot);/gi, (_all, _entity: string, hex?: string, dec?: string) => {
    if (hex) return String.fromCodePoint(parseInt(hex, 16));
    if (dec) return String.fromCodePoint(parseInt(dec, 10));
    return { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' }[_all.toLowerCase()] ?? _all;
  });
}

/**
 * A form of the page: its action and hidden fields (the one with this action, or the first). The OpenID
 * provider's own self-posting forms close their inputs with `/>`.
 */
export function formOf(html: string, action?: string): { action: string; hidden: Record<string, string> } {
  for (const match of html.matchAll(/<form method="post" action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)) {
    const formAction = unescapeHtml(match[1] ?? '');
    if (action !== undefined && formAction !== action) continue;
    const hidden: Record<string, string> = {};
    for (const input of (match[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/?>/g)) {
      hidden[input[1] ?? ''] = unescapeHtml(input[2] ?? '');
    }
    return { action: formAction, hidden };
  }
  throw new Error(`no form${action ? ` posting to ${action}` : ''} on the page:\n${html}`);
}

/** Every form of the page that posts to `action`, with its hidden fields. */
export function formsOf(html: string, action: string): Array<Record<string, string>> {
  return [...html.matchAll(/<form method="post" action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)]
    .filter((match) => unescapeHtml(match[1] ?? '') === action)
    .map((match) => Object.fromEntries([...(match[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((input) => [input[1] ?? '', unescapeHtml(input[2] ?? '')])));
}

/** The base32 key of a set-up page, from the field that holds it unbroken. */
export function secretOf(html: string): string {
  const secret = /<input id="secret" type="text" value="([A-Z2-7]+)"/.exec(html)?.[1];
  if (!secret) throw new Error(`no key on the page:\n${html}`);
  return secret;
}

/** The recovery codes of the page that shows them once. */
export function recoveryCodesOf(html: string): string[] {
  return [...html.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((match) => match[1] ?? '');
}
