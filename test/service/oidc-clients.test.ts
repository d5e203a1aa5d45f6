/**
 * The OpenID clients' refusals are the service's error codes, as every other service's are: a name taken, a
 * name no client has, a secret asked of a public client, URIs that cannot be registered. Nothing is stored
 * by a refused call.
 */
import type { Services } from '../../src/service/index.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { tempServices } from '../helpers/test-services.js';

const REDIRECT = { redirectUris: ['https://portal.example.org/callback'] };

let services: Services;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ services, cleanup } = await tempServices());
});
afterEach(() => cleanup());

async function refusal(promise: Promise<unknown>): Promise<[string, string]> {
  const error = await serviceErrorOf(promise);
  return [error.code, error.message];
}

test('a name is taken once: the first client stays as it was', async () => {
  const { client } = await services.oidc.clients.add('portal', REDIRECT);
  expect(await refusal(services.oidc.clients.add('portal', { redirectUris: ['https://other.example.org/cb'] }))).toEqual([
    'OIDC_CLIENT_EXISTS',
    'An OpenID client with this name already exists: portal',
  ]);
  await expect(services.oidc.clients.get('portal')).resolves.toEqual(client);
});

test('get, rotate and remove refuse a name no client has', async () => {
  const notFound = ['OIDC_CLIENT_NOT_FOUND', 'No OpenID client has this name: ghost'];
  expect(await refusal(services.oidc.clients.get('ghost'))).toEqual(notFound);
  expect(await refusal(services.oidc.clients.rotate('ghost'))).toEqual(notFound);
  expect(await refusal(services.oidc.clients.remove('ghost'))).toEqual(notFound);
});

test('a public client has no secret to rotate: it stays public', async () => {
  await services.oidc.clients.add('app', { ...REDIRECT, public: true });
  expect(await refusal(services.oidc.clients.rotate('app'))).toEqual(['OIDC_CLIENT_PUBLIC', 'A public OpenID client has no secret: app']);
  await expect(services.oidc.clients.get('app')).resolves.toMatchObject({ secretHash: null });
});

test('URIs that cannot be registered, or none to redirect to, are refused and nothing is stored', async () => {
  const cases: Array<[Parameters<Services['oidc']['clients']['add']>[1], string]> = [
    [{ redirectUris: [] }, 'it needs a redirect URI'],
    [{ redirectUris: ['/callback'] }, '/callback must be an absolute http(s) URL'],
    [{ ...REDIRECT, postLogoutRedirectUris: ['https://portal.example.org/bye#now'] }, 'https://portal.example.org/bye#now must not have a fragment'],
    [{ ...REDIRECT, backchannelLogoutUri: 'https://user:pw@portal.example.org/logout' }, 'https://user:pw@portal.example.org/logout must not hold a user name or password'],
  ];
  for (const [input, detail] of cases) {
    expect(await refusal(services.oidc.clients.add('portal', input))).toEqual(['OIDC_CLIENT_INVALID', `The OpenID client cannot be registered as given: ${detail}`]);
  }
  await expect(services.oidc.clients.list()).resolves.toEqual([]);
});
