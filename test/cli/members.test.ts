import { cliHarness } from './harness.js';

let h: Awaited<ReturnType<typeof cliHarness>>;

beforeEach(async () => {
  h = await cliHarness();
});
afterEach(() => h.cleanup());

const ADA = ['members', 'add', '--id', 'm1', '--username', 'ada', '--email', 'ada@example.com', '--first-name', 'Ada', '--last-name', 'Lovelace'];

describe('members add', () => {
  it('adds a member and prints it, as text or JSON', async () => {
    const text = await h.run(...ADA);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^id\s+m1$/m);
    expect(text.stdout).toMatch(/^first name\s+Ada$/m);
    const json = await h.run('members', 'add', '--id', 'm2', '--username', 'bob', '--json');
    expect(JSON.parse(json.stdout)).toEqual({
      id: 'm2',
      username: 'bob',
      email: '',
      firstName: '',
      lastName: '',
      enabled: true,
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    await expect(h.services.members.get('m1')).resolves.toMatchObject({ username: 'ada', lastName: 'Lovelace' });
  });

  it('validates the options before touching the store', async () => {
    const badEmail = await h.run('members', 'add', '--id', 'm1', '--username', 'ada', '--email', 'not-an-email');
    expect(badEmail).toMatchObject({ code: 2, stderr: 'error: --email must be an email address\n', stdout: '' });
    const emptyId = await h.run('members', 'add', '--id', ' ', '--username', 'ada');
    expect(emptyId).toMatchObject({ code: 2, stderr: 'error: --id must not be empty\n' });
    const missing = await h.run('members', 'add', '--id', 'm1');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--username <username>' not specified");
    await expect(h.services.members.list()).resolves.toEqual([]);
  });

  it('refuses a duplicate id', async () => {
    await h.run(...ADA);
    const result = await h.run('members', 'add', '--id', 'm1', '--username', 'other');
    expect(result).toMatchObject({ code: 1, stderr: 'error: A member with this id or username already exists: m1\n' });
  });
});

describe('members list and show', () => {
  it('lists members in aligned columns or as a JSON array', async () => {
    expect((await h.run('members', 'list')).stdout).toBe('No members.\n');
    await h.run(...ADA);
    await h.run('members', 'add', '--id', 'member-two', '--username', 'bob');
    const text = await h.run('members', 'list');
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+USERNAME\s+EMAIL\s+FIRST NAME\s+LAST NAME\s+ENABLED\s+CREATED$/);
    expect(lines).toHaveLength(3);
    // Aligned: every row's username starts in the same column as the heading.
    const column = lines[0]!.indexOf('USERNAME');
    expect(lines.slice(1).map((l) => l.slice(column).split(/\s+/)[0]).sort()).toEqual(['ada', 'bob']);
    const json = JSON.parse((await h.run('members', 'list', '--json')).stdout) as Array<{ id: string }>;
    expect(json.map((m) => m.id).sort()).toEqual(['m1', 'member-two']);
  });

  it('shows one member, and fails clearly for an unknown one', async () => {
    await h.run(...ADA);
    expect(JSON.parse((await h.run('members', 'show', 'm1', '--json')).stdout)).toMatchObject({ id: 'm1', email: 'ada@example.com' });
    expect((await h.run('members', 'show', 'm1')).stdout).toMatch(/^email\s+ada@example.com$/m);
    const unknown = await h.run('members', 'show', 'nobody');
    expect(unknown).toMatchObject({ code: 1, stderr: 'error: No member has this id: nobody\n', stdout: '' });
  });
});

describe('members disable, enable and remove', () => {
  it('changes the member and reports it in one line', async () => {
    await h.run(...ADA);
    expect(await h.run('members', 'disable', 'm1')).toMatchObject({ code: 0, stdout: 'Member m1 disabled.\n' });
    await expect(h.services.members.get('m1')).resolves.toMatchObject({ enabled: false });
    expect(await h.run('members', 'enable', 'm1')).toMatchObject({ code: 0, stdout: 'Member m1 enabled.\n' });
    await expect(h.services.members.get('m1')).resolves.toMatchObject({ enabled: true });
    expect(await h.run('members', 'remove', 'm1')).toMatchObject({ code: 0, stdout: 'Member m1 and its sessions removed.\n' });
    await expect(h.services.members.list()).resolves.toEqual([]);
  });

  it('fails clearly for an unknown member', async () => {
    for (const verb of ['disable', 'enable', 'remove']) {
      expect(await h.run('members', verb, 'ghost')).toMatchObject({ code: 1, stderr: 'error: No member has this id: ghost\n' });
    }
  });
});
