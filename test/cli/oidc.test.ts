import { cliHarness } from '../helpers/cli-harness.js';

let h: Awaited<ReturnType<typeof cliHarness>>;

const PUBLIC_URL = 'https://members.example.org';

beforeEach(async () => {
  h = await cliHarness({ PUBLIC_URL });
});
afterEach(() => h.cleanup());

const ADD = ['oidc-clients', 'add', 'portal', '--redirect-uri', 'https://portal.example.org/callback'];

describe('oidc-clients add', () => {
  it('prints the client id and secret once, stores only the secret\'s hash, and takes every URI option', async () => {
    const result = await h.run(
      ...ADD,
      '--redirect-uri',
      'http://127.0.0.1:8081/callback',
      '--post-logout-redirect-uri',
      'https://portal.example.org/bye',
      '--backchannel-logout-uri',
      'http://10.0.0.5/logout',
      '--first-party',
      '--json',
    );
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as { client_id: string; client_secret: string };
    expect(Object.keys(doc)).toEqual(['client_id', 'client_secret']);
    expect(doc.client_secret.length).toBeGreaterThanOrEqual(43);
    expect(result.stderr).toMatch(/shown only once/);
    const client = await h.services.oidc.clients.get('portal');
    expect(client).toMatchObject({
      id: doc.client_id,
      firstParty: true,
      redirectUris: ['https://portal.example.org/callback', 'http://127.0.0.1:8081/callback'],
      postLogoutRedirectUris: ['https://portal.example.org/bye'],
      backchannelLogoutUri: 'http://10.0.0.5/logout',
    });
    expect(client?.secretHash).not.toContain(doc.client_secret);
    expect(h.services.oidc.clients.secretMatches(client?.secretHash ?? '', doc.client_secret)).toBe(true);
    expect(h.services.oidc.clients.secretMatches(client?.secretHash ?? '', `${doc.client_secret}x`)).toBe(false);
  });

  it('warns, on stderr and in the JSON document, that the provider stays off while PUBLIC_URL is not set', async () => {
    const unset = await cliHarness({});
    try {
      const warning = 'PUBLIC_URL is not set: the OpenID provider is off until it is (it is the issuer), and discovery answers 404';
      const result = await unset.run(...ADD, '--public', '--json');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ client_id: expect.any(String), warnings: [warning] });
      expect(result.stderr).toBe(`warning: ${warning}\n`);
      const text = await unset.run('oidc-clients', 'add', 'forum', '--redirect-uri', 'https://forum.example.org/callback');
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^client_id +\S+\nclient_secret +\S+\n$/);
      expect(text.stderr).toContain(`warning: ${warning}\n`);
    } finally {
      await unset.cleanup();
    }
  });

  it('gives a public client no secret', async () => {
    const result = await h.run(...ADD, '--public', '--json');
    expect(result.code).toBe(0);
    expect(Object.keys(JSON.parse(result.stdout) as object)).toEqual(['client_id']);
    expect(result.stderr).toBe('');
    expect((await h.services.oidc.clients.get('portal'))?.secretHash).toBeNull();
  });

  it('refuses a redirect URI that is not an absolute http(s) URL without a fragment, a missing one, and a name taken', async () => {
    for (const [uri, problem] of [
      ['/callback', 'must be an absolute http(s) URL'],
      ['javascript:alert(1)', 'must be an absolute http(s) URL'],
      ['https://portal.example.org/callback#done', 'must not have a fragment'],
      ['https://user:pw@portal.example.org/callback', 'must not hold a user name or password'],
    ] as const) {
      expect(await h.run('oidc-clients', 'add', 'portal', '--redirect-uri', uri)).toEqual({ code: 2, stdout: '', stderr: `error: --redirect-uri ${uri} ${problem}\n` });
    }
    expect(await h.run('oidc-clients', 'add', 'portal')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining("required option '--redirect-uri <uri>' not specified") });
    expect((await h.run(...ADD)).code).toBe(0);
    expect(await h.run(...ADD)).toEqual({ code: 1, stdout: '', stderr: 'error: An OpenID client with this name already exists: portal\n' });
  });
});

describe('oidc-clients list, show, rotate and remove', () => {
  it('lists and shows clients without their secrets', async () => {
    const { client_secret: secret } = JSON.parse((await h.run(...ADD, '--json')).stdout) as { client_secret: string };
    const list = await h.run('oidc-clients', 'list', '--json');
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: 'portal', type: 'confidential', firstParty: false })]);
    const show = await h.run('oidc-clients', 'show', 'portal', '--json');
    expect(JSON.parse(show.stdout)).toMatchObject({ name: 'portal', redirectUris: ['https://portal.example.org/callback'], backchannelLogoutUri: null });
    expect(`${list.stdout}${show.stdout}`).not.toContain(secret);
    expect((await h.run('oidc-clients', 'show', 'portal')).stdout).toMatch(/^redirect uris\s+https:\/\/portal\.example\.org\/callback$/m);
  });

  it('rotates the secret (the old one stops working) but refuses to for a public client', async () => {
    const first = JSON.parse((await h.run(...ADD, '--json')).stdout) as { client_id: string; client_secret: string };
    const rotated = JSON.parse((await h.run('oidc-clients', 'rotate', 'portal', '--json')).stdout) as { client_id: string; client_secret: string };
    expect(rotated.client_id).toBe(first.client_id);
    const hash = (await h.services.oidc.clients.get('portal'))?.secretHash ?? '';
    expect(h.services.oidc.clients.secretMatches(hash, rotated.client_secret)).toBe(true);
    expect(h.services.oidc.clients.secretMatches(hash, first.client_secret)).toBe(false);
    await h.run('oidc-clients', 'add', 'app', '--redirect-uri', 'https://app.example.org/cb', '--public');
    expect(await h.run('oidc-clients', 'rotate', 'app')).toEqual({ code: 1, stdout: '', stderr: 'error: A public OpenID client has no secret: app\n' });
  });

  it('removes a client; the provider is off once none is left', async () => {
    await h.run(...ADD);
    expect(await h.services.oidc.clients.any()).toBe(true);
    expect(JSON.parse((await h.run('oidc-clients', 'remove', 'portal', '--json')).stdout)).toEqual({ name: 'portal', removed: true });
    expect(await h.services.oidc.clients.any()).toBe(false);
  });
});

describe('oidc-keys', () => {
  it('rotates the signing key: the new one signs, the old one is listed retired', async () => {
    expect((await h.run('oidc-keys', 'list')).stdout).toMatch(/^No signing keys yet/);
    const first = JSON.parse((await h.run('oidc-keys', 'rotate', '--json')).stdout) as { kid: string };
    const second = JSON.parse((await h.run('oidc-keys', 'rotate', '--json')).stdout) as { kid: string };
    const keys = JSON.parse((await h.run('oidc-keys', 'list', '--json')).stdout) as Array<{ kid: string; retired: string | null }>;
    expect(keys.map((key) => [key.kid, key.retired === null])).toEqual([
      [second.kid, true],
      [first.kid, false],
    ]);
    const published = await h.services.oidc.keys.signingKeys(60_000);
    expect(published.map((key) => key.kid)).toEqual([second.kid, first.kid]);
    expect(await h.services.oidc.keys.signingKeys(-1)).toHaveLength(1);
  });
});
