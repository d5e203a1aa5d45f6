import { cliHarness } from '../helpers/cli-harness.js';

let h: Awaited<ReturnType<typeof cliHarness>>;

beforeEach(async () => {
  h = await cliHarness();
  await h.services.members.add({ id: 'm1', username: 'ada' });
});
afterEach(() => h.cleanup());

interface Created {
  id: string;
  member: string;
  domain: string;
  cookie: string;
  token: string;
  created: string;
  expires: string;
}

async function createSession(domain = 'Example.com'): Promise<Created> {
  const result = await h.run('sessions', 'create', 'm1', '--domain', domain, '--json');
  expect(result.code).toBe(0);
  expect(result.stderr).toMatch(/shown only once/);
  return JSON.parse(result.stdout) as Created;
}

describe('sessions create', () => {
  it('prints a cookie and a token that verify, once, with the expiry', async () => {
    const s = await createSession();
    expect(s).toMatchObject({ member: 'm1', domain: 'example.com', expires: expect.stringMatching(/Z$/) });
    expect(Date.parse(s.expires) - Date.parse(s.created)).toBe(3600 * 1000);
    const byCookie = await h.services.sessions.checkCookie(s.cookie, 'example.com');
    expect(byCookie).toMatchObject({ ok: true, token: s.token });
    await expect(h.services.sessions.checkToken(s.token)).resolves.toMatchObject({ ok: true });
  });

  it('prints the same fields as text', async () => {
    const result = await h.run('sessions', 'create', 'm1', '--domain', 'example.com');
    expect(result.code).toBe(0);
    const cookie = /^cookie\s+(\S+)$/m.exec(result.stdout)?.[1];
    const token = /^token\s+(\S+)$/m.exec(result.stdout)?.[1];
    expect(result.stdout).toMatch(/^expires\s+\S+Z$/m);
    await expect(h.services.sessions.checkCookie(cookie ?? null, 'example.com')).resolves.toMatchObject({ ok: true, token });
  });

  it('rejects an unknown member and an invalid domain', async () => {
    const unknown = await h.run('sessions', 'create', 'ghost', '--domain', 'example.com');
    expect(unknown).toMatchObject({ code: 3, stderr: 'error: No member has this id: ghost\n', stdout: '' });
    const badDomain = await h.run('sessions', 'create', 'm1', '--domain', 'not a domain');
    expect(badDomain).toMatchObject({ code: 2, stderr: 'error: --domain must be a domain name such as example.com\n' });
  });
});

describe('sessions list', () => {
  it('lists live sessions without their cookie, token or hashes', async () => {
    const s = await createSession();
    const text = await h.run('sessions', 'list');
    const json = await h.run('sessions', 'list', '--json');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ID\s+MEMBER\s+DOMAIN\s+CREATED\s+LAST SEEN\s+EXPIRES\s+REVOKED$/m);
    expect(text.stdout).toContain(s.id);
    expect(JSON.parse(json.stdout)).toEqual([
      { id: s.id, member: 'm1', domain: 'example.com', created: s.created, lastSeen: s.created, expires: s.expires, revoked: null },
    ]);
    for (const out of [text.stdout, json.stdout]) {
      expect(out).not.toContain(s.cookie);
      expect(out).not.toContain(s.token);
      expect(out).not.toMatch(/hash|sealed/i);
    }
  });

  it('filters by member, and shows revoked sessions only with --all', async () => {
    await h.services.members.add({ id: 'm2', username: 'bob' });
    const s = await createSession();
    await h.run('sessions', 'create', 'm2', '--domain', 'example.com');
    expect(JSON.parse((await h.run('sessions', 'list', '--json')).stdout)).toHaveLength(2);
    expect(JSON.parse((await h.run('sessions', 'list', '--member', 'm2', '--json')).stdout)).toMatchObject([{ member: 'm2' }]);
    await h.run('sessions', 'revoke', s.id);
    expect(JSON.parse((await h.run('sessions', 'list', '--member', 'm1', '--json')).stdout)).toEqual([]);
    expect((await h.run('sessions', 'list', '--member', 'm1')).stdout).toBe('No live sessions.\n');
    const all = JSON.parse((await h.run('sessions', 'list', '--member', 'm1', '--all', '--json')).stdout) as Array<{ revoked: string | null }>;
    expect(all).toEqual([expect.objectContaining({ id: s.id, revoked: expect.stringMatching(/Z$/) })]);
  });
});

describe('sessions revoke and revoke-all', () => {
  it('revoke stops the cookie and the token from verifying', async () => {
    const s = await createSession();
    expect(await h.run('sessions', 'revoke', s.id)).toMatchObject({ code: 0, stdout: `Session ${s.id} revoked.\n` });
    await expect(h.services.sessions.checkCookie(s.cookie, 'example.com')).resolves.toMatchObject({ ok: false });
    await expect(h.services.sessions.checkToken(s.token)).resolves.toMatchObject({ ok: false });
    expect(await h.run('sessions', 'revoke', s.id)).toMatchObject({ code: 3, stderr: `error: No live session has this id: ${s.id}\n` });
  });

  it('revoke-all signs the member out everywhere and prints how many', async () => {
    const a = await createSession('example.com');
    const b = await createSession('example.org');
    expect(await h.run('sessions', 'revoke-all', 'm1')).toMatchObject({ code: 0, stdout: 'Revoked 2 session(s) of member m1.\n' });
    for (const s of [a, b]) await expect(h.services.sessions.checkToken(s.token)).resolves.toMatchObject({ ok: false });
    expect(await h.run('sessions', 'revoke-all', 'ghost')).toMatchObject({ code: 3, stderr: 'error: No member has this id: ghost\n' });
  });
});
