import { cliHarness } from '../helpers/cli-harness.js';
import { confirmedFactor } from '../helpers/second-factor.js';

/**
 * The spellings the CLI took before its one grammar still work: the same stdout as the current spelling (scripts
 * parse it), and one notice line on stderr naming the current spelling.
 */

let h: Awaited<ReturnType<typeof cliHarness>>;

beforeEach(async () => {
  h = await cliHarness();
  await h.services.members.add({ id: 'm1', username: 'ada' });
});
afterEach(() => h.cleanup());

function notice(former: string, current: string): string {
  return `warning: "${former}" is deprecated; use "${current}"\n`;
}

const enableSecondFactor = (id: string) => confirmedFactor(h.services, id, Date.now());

describe('--id ID, now the argument ID', () => {
  it('members set-password --id ID sets the password, as set-password ID does', async () => {
    const former = await h.run('members', 'set-password', '--id', 'm1', '--password', 'correct horse');
    const current = await h.run('members', 'set-password', 'm1', '--password', 'correct horse');
    expect(current).toEqual({ code: 0, stdout: 'Password of member m1 set.\n', stderr: '' });
    expect(former).toEqual({ ...current, stderr: notice('members set-password --id ID', 'members set-password ID') });
  });

  it('members mfa status --id ID', async () => {
    await enableSecondFactor('m1');
    for (const json of [[], ['--json']]) {
      const former = await h.run('members', 'mfa', 'status', '--id', 'm1', ...json);
      const current = await h.run('members', 'mfa', 'status', 'm1', ...json);
      expect(current).toMatchObject({ code: 0, stderr: '' });
      expect(former).toEqual({ ...current, stderr: notice('members mfa status --id ID', 'members mfa status ID') });
    }
  });

  it('members mfa reset --id ID', async () => {
    await enableSecondFactor('m1');
    const former = await h.run('members', 'mfa', 'reset', '--id', 'm1');
    expect(former).toEqual({
      code: 0,
      stdout: 'Second factor of member m1 removed, with its 10 unused recovery codes.\n',
      stderr: notice('members mfa reset --id ID', 'members mfa reset ID'),
    });
    await expect(h.services.secondFactor.status('m1')).resolves.toMatchObject({ enabled: false });
  });

  it('still fails as the current spelling does for a missing member, after the notice', async () => {
    const former = await h.run('members', 'mfa', 'status', '--id', 'ghost');
    expect(former).toEqual({
      code: 3,
      stdout: '',
      stderr: `${notice('members mfa status --id ID', 'members mfa status ID')}error: No member has this id: ghost\n`,
    });
  });

  it('refuses the two spellings together, and is hidden from the help', async () => {
    const both = await h.run('members', 'set-password', 'm1', '--id', 'm1', '--password', 'correct horse');
    expect(both).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('error: --id is the former spelling of ID: give ID alone\n') });
    const help = await h.run('members', 'set-password', '--help');
    expect(help.stdout).toContain('Usage: authentication-asmx members set-password [options] <id>');
    expect(help.stdout).not.toContain('--id');
  });
});

describe('--member ID, now the argument MEMBER_ID of sessions create and revoke-all', () => {
  it('sessions create --member ID creates the session, printing the same fields', async () => {
    const former = await h.run('sessions', 'create', '--member', 'm1', '--domain', 'example.com', '--json');
    const current = await h.run('sessions', 'create', 'm1', '--domain', 'example.com', '--json');
    expect(former.stderr).toBe(`${notice('sessions create --member MEMBER_ID', 'sessions create MEMBER_ID')}${current.stderr}`);
    expect(current).toMatchObject({ code: 0, stderr: 'warning: the cookie and token are shown only once\n' });
    const created = JSON.parse(former.stdout) as Record<string, unknown>;
    expect(Object.keys(created)).toEqual(Object.keys(JSON.parse(current.stdout) as object));
    expect(created).toMatchObject({ member: 'm1', domain: 'example.com' });
    await expect(h.services.sessions.checkToken(String(created.token))).resolves.toMatchObject({ ok: true });
  });

  it('sessions revoke-all --member ID', async () => {
    await h.services.sessions.create('m1', 'example.com');
    const former = await h.run('sessions', 'revoke-all', '--member', 'm1');
    expect(former).toEqual({
      code: 0,
      stdout: 'Revoked 1 session(s) of member m1.\n',
      stderr: notice('sessions revoke-all --member MEMBER_ID', 'sessions revoke-all MEMBER_ID'),
    });
  });

  it('stays the filter of sessions list, without a notice', async () => {
    expect(await h.run('sessions', 'list', '--member', 'm1')).toEqual({ code: 0, stdout: 'No live sessions.\n', stderr: '' });
  });
});

describe('--member and --no-member of members add and update, now --is-member yes|no', () => {
  it.each([
    ['--member', 'yes', true],
    ['--no-member', 'no', false],
  ])('members update %s prints what --is-member %s does', async (flag, answer, isMember) => {
    const former = await h.run('members', 'update', 'm1', flag, '--json');
    const current = await h.run('members', 'update', 'm1', '--is-member', answer, '--json');
    expect(current).toMatchObject({ code: 0, stderr: '' });
    expect(former).toEqual({ ...current, stderr: notice(`members update ${flag}`, `members update --is-member ${answer}`) });
    await expect(h.services.members.get('m1')).resolves.toMatchObject({ attributes: { isMember } });
  });

  it('members add --member adds a member', async () => {
    const former = await h.run('members', 'add', '--id', 'm2', '--username', 'bob', '--member');
    expect(former).toMatchObject({ code: 0, stderr: notice('members add --member', 'members add --is-member yes') });
    expect(former.stdout).toMatch(/^attributes\s+is-member=yes$/m);
    await expect(h.services.members.get('m2')).resolves.toMatchObject({ attributes: { isMember: true } });
  });

  it('refuses --member with --is-member, before changing anything', async () => {
    const both = await h.run('members', 'update', 'm1', '--member', '--is-member', 'no');
    expect(both).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining("error: option '--member' cannot be used with option '--is-member <yes|no>'") });
    await expect(h.services.members.get('m1')).resolves.toMatchObject({ attributes: {} });
  });
});
