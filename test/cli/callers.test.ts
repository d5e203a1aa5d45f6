import { cliHarness } from '../helpers/cli-harness.js';

let h: Awaited<ReturnType<typeof cliHarness>>;

beforeEach(async () => {
  h = await cliHarness();
});
afterEach(() => h.cleanup());

function passwordFromText(stdout: string): string {
  const match = /^password\s+(\S+)$/m.exec(stdout);
  if (!match?.[1]) throw new Error(`no password in:\n${stdout}`);
  return match[1];
}

describe('callers add', () => {
  it('prints a generated password once, with a warning, and the password verifies', async () => {
    const result = await h.run('callers', 'add', 'partner-a');
    expect(result.code).toBe(0);
    const password = passwordFromText(result.stdout);
    expect(password.length).toBeGreaterThanOrEqual(20);
    expect(result.stderr).toMatch(/shown only once/);
    await expect(h.services.callers.verify(password)).resolves.toMatchObject({ name: 'partner-a' });
  });

  it('prints one JSON document with --json, and nothing but it on stdout', async () => {
    const result = await h.run('callers', 'add', 'partner-a', '--json');
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as { name: string; password: string };
    expect(doc.name).toBe('partner-a');
    await expect(h.services.callers.verify(doc.password)).resolves.toMatchObject({ name: 'partner-a' });
    expect(result.stderr).toMatch(/warning: /);
  });

  it('uses the password given with --password', async () => {
    const result = await h.run('callers', 'add', 'legacy', '--password', 'old-service-secret');
    expect(result.code).toBe(0);
    expect(passwordFromText(result.stdout)).toBe('old-service-secret');
    await expect(h.services.callers.verify('old-service-secret')).resolves.toMatchObject({ name: 'legacy' });
  });

  it('refuses a duplicate name with a clear message and exit 1', async () => {
    await h.run('callers', 'add', 'partner-a');
    const result = await h.run('callers', 'add', 'partner-a');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: A caller with this name already exists: partner-a\n');
    expect(result.stdout).toBe('');
  });

  it('never echoes a rejected password', async () => {
    await h.run('callers', 'add', 'a', '--password', 'shared-secret');
    const reused = await h.run('callers', 'add', 'b', '--password', 'shared-secret');
    expect(reused.code).toBe(1);
    expect(reused.stderr).not.toContain('shared-secret');
    const short = await h.run('callers', 'add', 'c', '--password', 'abc');
    expect(short.code).toBe(1);
    expect(short.stderr).not.toContain('abc');
  });

  it('rejects an empty name as a usage error', async () => {
    const result = await h.run('callers', 'add', '  ');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: NAME must not be empty\n');
  });
});

describe('callers list', () => {
  it('shows name, enabled, number of valid passwords, created and origins, as a table or JSON', async () => {
    await h.run('callers', 'add', 'partner-a');
    await h.run('callers', 'rotate', 'partner-a');
    await h.run('callers', 'add', 'b');
    await h.run('callers', 'disable', 'b');
    await h.run('callers', 'add-origin', 'partner-a', 'https://portal.example.org', '--receives-token');
    await h.run('callers', 'add-origin', 'partner-a', 'https://www.example.org');

    const text = await h.run('callers', 'list');
    expect(text.code).toBe(0);
    const [header, ...lines] = text.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAME\s+ENABLED\s+PASSWORDS\s+CREATED\s+ORIGINS$/);
    expect(lines).toHaveLength(2);
    expect(lines.find((l) => l.startsWith('partner-a'))).toMatch(
      /^partner-a\s+yes\s+2\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+https:\/\/portal\.example\.org \(token\) https:\/\/www\.example\.org$/,
    );
    expect(lines.find((l) => l.startsWith('b '))).toMatch(/^b\s+no\s+1\s+\S+\s+-$/);

    const json = JSON.parse((await h.run('callers', 'list', '--json')).stdout) as unknown[];
    expect(json).toEqual(
      expect.arrayContaining([
        {
          name: 'partner-a',
          enabled: true,
          passwords: 2,
          created: expect.stringMatching(/Z$/),
          origins: [
            { origin: 'https://portal.example.org', receivesToken: true },
            { origin: 'https://www.example.org', receivesToken: false },
          ],
        },
        { name: 'b', enabled: false, passwords: 1, created: expect.stringMatching(/Z$/), origins: [] },
      ]),
    );
    expect(text.stdout + JSON.stringify(json)).not.toMatch(/hash/i);
  });

  it('says so when there is no caller, and --json gives an empty array', async () => {
    expect((await h.run('callers', 'list')).stdout).toBe('No callers.\n');
    expect(JSON.parse((await h.run('callers', 'list', '--json')).stdout)).toEqual([]);
  });
});

describe('callers add-origin and remove-origin', () => {
  it('registers the origin normalised, with or without the token, and re-registering changes the flag', async () => {
    await h.run('callers', 'add', 'p');
    const added = await h.run('callers', 'add-origin', 'p', 'HTTPS://Portal.Example.ORG:443/');
    expect(added).toMatchObject({ code: 0, stdout: 'Origin https://portal.example.org registered for caller p.\n', stderr: '' });
    await expect(h.services.callers.listOrigins('p')).resolves.toEqual([
      expect.objectContaining({ caller: 'p', origin: 'https://portal.example.org', receivesToken: false }),
    ]);

    const again = await h.run('callers', 'add-origin', 'p', 'https://portal.example.org', '--receives-token');
    expect(again).toMatchObject({ code: 0, stdout: 'Origin https://portal.example.org registered for caller p (receives the token).\n' });
    await expect(h.services.callers.listOrigins()).resolves.toEqual([
      expect.objectContaining({ caller: 'p', origin: 'https://portal.example.org', receivesToken: true }),
    ]);
  });

  it.each([
    ['a path', 'https://portal.example.org/login'],
    ['a query', 'https://portal.example.org/?a=1'],
    ['another scheme', 'ftp://portal.example.org'],
    ['userinfo', 'https://user@portal.example.org'],
    ['no scheme', 'portal.example.org'],
  ])('refuses an origin with %s as a usage error', async (_what, origin) => {
    await h.run('callers', 'add', 'p');
    const result = await h.run('callers', 'add-origin', 'p', origin);
    expect(result).toMatchObject({ code: 2, stderr: 'error: ORIGIN must be an http(s) origin such as https://partner.example.org\n' });
    await expect(h.services.callers.listOrigins('p')).resolves.toEqual([]);
  });

  it('remove-origin removes it, and fails clearly when it was not registered or the caller is unknown', async () => {
    await h.run('callers', 'add', 'p');
    await h.run('callers', 'add-origin', 'p', 'https://portal.example.org');
    expect(await h.run('callers', 'remove-origin', 'p', 'https://PORTAL.example.org')).toMatchObject({
      code: 0,
      stdout: 'Origin https://portal.example.org removed from caller p.\n',
    });
    await expect(h.services.callers.listOrigins('p')).resolves.toEqual([]);
    expect(await h.run('callers', 'remove-origin', 'p', 'https://portal.example.org')).toMatchObject({
      code: 3,
      stderr: 'error: The caller has not registered this origin: https://portal.example.org\n',
    });
    expect(await h.run('callers', 'add-origin', 'nobody', 'https://portal.example.org')).toMatchObject({
      code: 3,
      stderr: 'error: No caller has this name: nobody\n',
    });
  });
});

describe('callers rotate and retire-old', () => {
  it('keeps the old password valid, and --retire-others retires it', async () => {
    await h.run('callers', 'add', 'p', '--password', 'first-password');
    const rotated = await h.run('callers', 'rotate', 'p', '--json');
    expect(rotated.code).toBe(0);
    const second = (JSON.parse(rotated.stdout) as { password: string }).password;
    expect(rotated.stderr).toMatch(/retire-old p/);
    await expect(h.services.callers.verify('first-password')).resolves.toBeTruthy();
    await expect(h.services.callers.verify(second)).resolves.toBeTruthy();

    const third = await h.run('callers', 'rotate', 'p', '--password', 'third-password', '--retire-others');
    expect(third.code).toBe(0);
    expect(passwordFromText(third.stdout)).toBe('third-password');
    await expect(h.services.callers.verify('first-password')).rejects.toThrow('Invalid security password');
    await expect(h.services.callers.verify(second)).rejects.toThrow('Invalid security password');
    await expect(h.services.callers.verify('third-password')).resolves.toBeTruthy();
  });

  it('retire-old keeps only the newest password', async () => {
    await h.run('callers', 'add', 'p', '--password', 'first-password');
    await h.run('callers', 'rotate', 'p', '--password', 'second-password');
    const result = await h.run('callers', 'retire-old', 'p');
    expect(result).toMatchObject({ code: 0, stdout: 'Retired 1 old password(s) of caller p.\n' });
    await expect(h.services.callers.verify('first-password')).rejects.toThrow();
    await expect(h.services.callers.verify('second-password')).resolves.toBeTruthy();
  });

  it('fails clearly for an unknown caller', async () => {
    const result = await h.run('callers', 'rotate', 'nobody');
    expect(result.code).toBe(3);
    expect(result.stderr).toBe('error: No caller has this name: nobody\n');
  });
});

describe('callers disable, enable and remove', () => {
  it('disable makes verify throw, enable restores it, remove deletes the caller', async () => {
    await h.run('callers', 'add', 'p', '--password', 'the-password');
    expect(await h.run('callers', 'disable', 'p')).toMatchObject({ code: 0, stdout: 'Caller p disabled.\n' });
    await expect(h.services.callers.verify('the-password')).rejects.toThrow('Invalid security password');
    expect(await h.run('callers', 'enable', 'p')).toMatchObject({ code: 0, stdout: 'Caller p enabled.\n' });
    await expect(h.services.callers.verify('the-password')).resolves.toBeTruthy();
    expect(await h.run('callers', 'remove', 'p')).toMatchObject({ code: 0, stdout: 'Caller p removed.\n' });
    await expect(h.services.callers.verify('the-password')).rejects.toThrow();
    expect((await h.run('callers', 'remove', 'p')).code).toBe(3);
  });
});
