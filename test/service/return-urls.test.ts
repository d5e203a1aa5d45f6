import type { Services } from '../../src/service/index.js';
import { normalizeOrigin, ReturnUrlPolicy, withToken } from '../../src/service/return-urls.js';
import type { Store } from '../../src/store/store.js';
import { tempServices } from '../helpers/test-services.js';

const OWN = 'https://members.example.org';
const DEFAULT = '/Login';

let store: Store;
let cleanup: () => Promise<void>;
let services: Services;
let policy: ReturnUrlPolicy;

beforeEach(async () => {
  ({ store, services, cleanup } = await tempServices());
  policy = new ReturnUrlPolicy(store, DEFAULT);
  await services.callers.add('portal');
  await services.callers.addOrigin('portal', 'https://portal.example.org', { receivesToken: true });
  await services.callers.addOrigin('portal', 'http://shop.example.org:8080');
  await services.callers.add('retired');
  await services.callers.addOrigin('retired', 'https://old.example.org', { receivesToken: true });
  await services.callers.setEnabled('retired', false);
});
afterEach(() => cleanup());

const resolve = (raw: string | undefined) => policy.resolve(raw, OWN);
const refused = { location: DEFAULT, appendToken: false };

describe('allowed return addresses', () => {
  it.each([
    ['/', '/'],
    ['/members/home?x=1#top', '/members/home?x=1#top'],
    ['/a/../b', '/b'],
  ])('keeps the path %s on this service', async (raw, location) => {
    await expect(resolve(raw)).resolves.toEqual({ location, appendToken: false });
  });

  it('accepts an absolute URL on the service\'s own origin, without the token', async () => {
    await expect(resolve('https://members.example.org/account')).resolves.toEqual({ location: 'https://members.example.org/account', appendToken: false });
    await expect(resolve('HTTPS://Members.Example.org:443/account')).resolves.toEqual({ location: 'https://members.example.org/account', appendToken: false });
  });

  it('accepts a registered origin, and asks for the token only where it was registered to receive it', async () => {
    await expect(resolve('https://portal.example.org/welcome?lang=en#news')).resolves.toEqual({
      location: 'https://portal.example.org/welcome?lang=en#news',
      appendToken: true,
    });
    await expect(resolve('http://shop.example.org:8080/cart')).resolves.toEqual({ location: 'http://shop.example.org:8080/cart', appendToken: false });
  });

  it('matches a registered origin whatever the letter case of its host, normalising it', async () => {
    await expect(resolve('https://PORTAL.Example.ORG/x')).resolves.toEqual({ location: 'https://portal.example.org/x', appendToken: true });
  });
});

describe('refused return addresses go to the default page', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['protocol-relative', '//evil.com'],
    ['protocol-relative with a path', '//evil.com/members'],
    ['backslash after the slash', '/\\evil.com'],
    ['backslashes only', '\\\\evil.com'],
    ['dot segments that normalise to //', '/.//evil.com'],
    ['another origin', 'https://evil.com'],
    ['a registered host as a prefix of another', 'https://portal.example.org.evil.com/'],
    ['a registered host as userinfo', 'https://portal.example.org@evil.com/'],
    ['userinfo on the own host', 'http://user@members.example.org/'],
    ['userinfo on the own host (https)', 'https://user:pw@members.example.org/'],
    ['an empty userinfo', 'https://@portal.example.org/'],
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['a registered host on another scheme', 'ftp://portal.example.org/'],
    ['a registered host on another port', 'https://portal.example.org:8443/'],
    ['a registered host over http', 'http://portal.example.org/'],
    ['no slashes after the scheme', 'https:portal.example.org'],
    ['one slash after the scheme', 'https:/portal.example.org'],
    ['a tab in the scheme', 'ht\ttps://evil.com'],
    ['a newline', '/ok\n//evil.com'],
    ['a leading space', ' https://portal.example.org/'],
    ['a NUL character', '/ok\u0000'],
    ['a percent-encoded host', 'https://%70ortal.example.org/'],
    ['a trailing dot on the host', 'https://portal.example.org./'],
    ['a relative path without a slash', 'evil.com'],
    ['an origin registered by a disabled caller', 'https://old.example.org/'],
  ])('%s', async (_what, raw) => {
    await expect(resolve(raw)).resolves.toEqual(refused);
  });
});

describe('withToken', () => {
  it('adds the token as a query parameter, replacing one already there and keeping the fragment', () => {
    expect(withToken('https://portal.example.org/welcome#news', 'abc-_1')).toBe('https://portal.example.org/welcome?token=abc-_1#news');
    expect(withToken('https://portal.example.org/?lang=en&token=forged&token=again', 'real')).toBe('https://portal.example.org/?lang=en&token=real');
  });
});

describe('normalizeOrigin', () => {
  it.each([
    ['https://Portal.Example.ORG', 'https://portal.example.org'],
    ['https://portal.example.org/', 'https://portal.example.org'],
    ['https://portal.example.org:443', 'https://portal.example.org'],
    ['http://portal.example.org:80', 'http://portal.example.org'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['http://[::1]:8080', 'http://[::1]:8080'],
  ])('%s is %s', (raw, origin) => {
    expect(normalizeOrigin(raw)).toBe(origin);
  });

  it.each(['https://portal.example.org/path', 'https://portal.example.org/?', 'https://portal.example.org/#x', 'https://u@portal.example.org', 'ftp://x.org', 'x.org', ''])(
    'refuses %j',
    (raw) => {
      expect(normalizeOrigin(raw)).toBeNull();
    },
  );
});
