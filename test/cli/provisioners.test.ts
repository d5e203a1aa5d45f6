import { ExitCode } from '../../src/cli/handle-error.js';
import { cliHarness } from '../helpers/cli-harness.js';

let h: Awaited<ReturnType<typeof cliHarness>>;

beforeEach(async () => {
  h = await cliHarness();
});
afterEach(() => h.cleanup());

const ADDRESS = '192.0.2.20';

async function issued(...args: string[]): Promise<{ name: string; token: string }> {
  const result = await h.run(...args, '--json');
  expect(result.code).toBe(ExitCode.ok);
  expect(result.stderr).toBe('warning: this token is shown only once: copy it into the identity provider now\n');
  return JSON.parse(result.stdout) as { name: string; token: string };
}

describe('provisioners add', () => {
  it('prints {"name","token"} once with --json; the token is a random base64url secret that authenticates the client', async () => {
    const { name, token } = await issued('provisioners', 'add', 'entra');
    expect(name).toBe('entra');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await expect(h.services.provisioners.authenticate(token, ADDRESS)).resolves.toEqual({ ok: true, client: 'entra' });
    expect((await issued('provisioners', 'add', 'okta')).token).not.toBe(token);
  });

  it('prints the token as a record for people', async () => {
    const result = await h.run('provisioners', 'add', 'entra');
    expect(result.code).toBe(ExitCode.ok);
    expect(result.stdout).toMatch(/^name\s+entra\ntoken\s+[A-Za-z0-9_-]{43}\n$/);
  });

  it('refuses a name taken, with exit 1 and no token', async () => {
    await h.run('provisioners', 'add', 'entra');
    expect(await h.run('provisioners', 'add', 'entra', '--json')).toEqual({
      code: ExitCode.failure,
      stdout: '',
      stderr: 'error: A provisioning client with this name already exists: entra\n',
    });
  });

  it('refuses an empty name as a usage error', async () => {
    expect(await h.run('provisioners', 'add', '  ')).toMatchObject({ code: ExitCode.usage, stderr: 'error: NAME must not be empty\n' });
  });
});

describe('provisioners list', () => {
  it('lists the clients by name with their creation time, never a token', async () => {
    const { token } = await issued('provisioners', 'add', 'okta');
    await issued('provisioners', 'add', 'entra');
    const listed = await h.run('provisioners', 'list', '--json');
    expect(JSON.parse(listed.stdout)).toEqual([
      { name: 'entra', created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      { name: 'okta', created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
    const text = await h.run('provisioners', 'list');
    expect(text.stdout).toMatch(/^NAME\s+CREATED\nentra\s+\S+\nokta\s+\S+\n$/);
    expect(listed.stdout + text.stdout).not.toContain(token);
  });

  it('says so when there is none', async () => {
    expect(await h.run('provisioners', 'list')).toEqual({ code: ExitCode.ok, stdout: 'No provisioning clients.\n', stderr: '' });
  });
});

describe('provisioners rotate and remove', () => {
  it('rotate: the new token authenticates, the old one no longer does', async () => {
    const old = await issued('provisioners', 'add', 'entra');
    const rotated = await issued('provisioners', 'rotate', 'entra');
    expect(rotated.name).toBe('entra');
    expect(rotated.token).not.toBe(old.token);
    await expect(h.services.provisioners.authenticate(rotated.token, ADDRESS)).resolves.toEqual({ ok: true, client: 'entra' });
    await expect(h.services.provisioners.authenticate(old.token, ADDRESS)).resolves.toEqual({ ok: false, retryAfterSeconds: null });
  });

  it('remove: the token stops working, and SCIM is off once no client is left', async () => {
    const { token } = await issued('provisioners', 'add', 'entra');
    await expect(h.services.provisioners.anyExist()).resolves.toBe(true);
    expect(await h.run('provisioners', 'remove', 'entra', '--json')).toEqual({ code: ExitCode.ok, stdout: '{\n  "name": "entra",\n  "removed": true\n}\n', stderr: '' });
    await expect(h.services.provisioners.authenticate(token, ADDRESS)).resolves.toEqual({ ok: false, retryAfterSeconds: null });
    await expect(h.services.provisioners.anyExist()).resolves.toBe(false);
  });
});
