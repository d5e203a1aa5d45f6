import { cliHarness } from '../helpers/cli-harness.js';
import { confirmedFactor } from '../helpers/second-factor.js';

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
      attributes: {},
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

  it('takes every attribute option, and prints the attributes', async () => {
    const result = await h.run(
      ...ADA,
      '--is-member',
      'yes',
      '--contact-number',
      '+44 20 7946 0958',
      '--label-name',
      'Gold',
      '--organisation-id',
      'org-1',
      '--organisation-name',
      'The Society',
      '--price-level-id',
      'pl-1',
      '--price-level-name',
      'Members',
      '--role',
      'r1:Editor',
      '--role',
      'r2:Chief: Editor',
      '--attribute',
      'tier=gold',
      '--attribute',
      'Note=a=b',
      '--json',
    );
    expect(result.code).toBe(0);
    const attributes = {
      isMember: true,
      contactNumber: '+44 20 7946 0958',
      labelName: 'Gold',
      organisationId: 'org-1',
      organisationName: 'The Society',
      priceLevelId: 'pl-1',
      priceLevelName: 'Members',
      roles: [
        { id: 'r1', name: 'Editor' },
        { id: 'r2', name: 'Chief: Editor' },
      ],
      extra: { tier: 'gold', Note: 'a=b' },
    };
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 'm1', attributes });
    expect((await h.services.members.get('m1')).attributes).toStrictEqual(attributes);
    expect((await h.run('members', 'show', 'm1')).stdout).toMatch(
      /^attributes\s+is-member=yes contact-number=\+44 20 7946 0958 label-name=Gold organisation-id=org-1 organisation-name=The Society price-level-id=pl-1 price-level-name=Members roles=r1:Editor\|r2:Chief: Editor attr:tier=gold attr:Note=a=b$/m,
    );
  });

  it('leaves isMember unset unless --is-member is given', async () => {
    await h.run('members', 'add', '--id', 'm1', '--username', 'ada');
    await h.run('members', 'add', '--id', 'm2', '--username', 'bob', '--is-member', 'no');
    expect((await h.services.members.get('m1')).attributes).toStrictEqual({});
    expect((await h.services.members.get('m2')).attributes).toStrictEqual({ isMember: false });
    expect((await h.run('members', 'show', 'm1')).stdout).toMatch(/^attributes\s+-$/m);
    expect((await h.run('members', 'show', 'm2')).stdout).toMatch(/^attributes\s+is-member=no$/m);
  });

  it('names the option of a role or an attribute it cannot read, and the service refuses what is not valid', async () => {
    const role = await h.run('members', 'add', '--id', 'm1', '--username', 'ada', '--role', 'editor');
    expect(role).toMatchObject({ code: 2, stderr: 'error: --role must be id:name, not "editor"\n', stdout: '' });
    for (const pair of ['tier', '=gold', 'a b=c']) {
      const attribute = await h.run('members', 'add', '--id', 'm1', '--username', 'ada', '--attribute', pair);
      expect(attribute).toMatchObject({
        code: 2,
        stderr: `error: --attribute must be key=value, the key letters, digits, _, . and - (64 at most) starting with a letter or _, not "${pair}"\n`,
      });
    }
    const twice = await h.run('members', 'add', '--id', 'm1', '--username', 'ada', '--role', 'r1:A', '--role', 'r1:B');
    expect(twice).toMatchObject({ code: 1, stderr: 'error: The member record is not valid: two roles have the id "r1"\n' });
    await expect(h.services.members.list()).resolves.toEqual([]);
  });

  it('leaves the id to the service: required for ids of any form', async () => {
    const result = await h.run('members', 'add', '--username', 'ada');
    expect(result).toMatchObject({ code: 1, stderr: 'error: The member record is not valid: id and username are required\n' });
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
    expect(lines[0]).toMatch(/^ID\s+USERNAME\s+EMAIL\s+FIRST NAME\s+LAST NAME\s+ENABLED\s+CREATED\s+ATTRIBUTES$/);
    expect(lines).toHaveLength(3);
    // Aligned: every row's username starts in the same column as the heading.
    const column = lines[0]!.indexOf('USERNAME');
    expect(lines.slice(1).map((l) => l.slice(column).split(/\s+/)[0]).sort()).toEqual(['ada', 'bob']);
    const json = JSON.parse((await h.run('members', 'list', '--json')).stdout) as Array<{ id: string }>;
    expect(json.map((m) => m.id).sort()).toEqual(['m1', 'member-two']);
    await h.services.members.update('m1', { attributes: { roles: [{ id: 'r1', name: 'Editor' }] } });
    expect((await h.run('members', 'list')).stdout).toMatch(/^m1\s.*\sroles=r1:Editor$/m);
    expect(JSON.parse((await h.run('members', 'list', '--json')).stdout)).toContainEqual(
      expect.objectContaining({ id: 'm1', attributes: { roles: [{ id: 'r1', name: 'Editor' }] } }),
    );
  });

  it('shows one member, and fails clearly for an unknown one', async () => {
    await h.run(...ADA);
    expect(JSON.parse((await h.run('members', 'show', 'm1', '--json')).stdout)).toMatchObject({
      id: 'm1',
      email: 'ada@example.com',
      attributes: {},
    });
    expect((await h.run('members', 'show', 'm1')).stdout).toMatch(/^email\s+ada@example.com$/m);
    expect((await h.run('members', 'show', 'm1')).stdout).toMatch(/^second factor\s+no$/m);
    expect(JSON.parse((await h.run('members', 'show', 'm1', '--json')).stdout)).toMatchObject({ secondFactor: false });
    const unknown = await h.run('members', 'show', 'nobody');
    expect(unknown).toMatchObject({ code: 3, stderr: 'error: No member has this id: nobody\n', stdout: '' });
  });
});

describe('members update', () => {
  const ATTRIBUTES = ['--is-member', 'yes', '--label-name', 'Gold', '--role', 'r1:Editor', '--attribute', 'tier=gold', '--attribute', 'zone=eu'];

  beforeEach(async () => {
    await h.run(...ADA, ...ATTRIBUTES);
  });

  it('changes only what is given, and prints the member', async () => {
    const result = await h.run('members', 'update', 'm1', '--email', 'ada@example.net', '--last-name', 'King');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^email\s+ada@example.net$/m);
    expect(result.stdout).toMatch(/^attributes\s+is-member=yes label-name=Gold roles=r1:Editor attr:tier=gold attr:zone=eu$/m);
    await expect(h.services.members.get('m1')).resolves.toMatchObject({
      email: 'ada@example.net',
      firstName: 'Ada',
      lastName: 'King',
      attributes: { isMember: true, labelName: 'Gold', roles: [{ id: 'r1', name: 'Editor' }], extra: { tier: 'gold', zone: 'eu' } },
    });
  });

  it('merges the attribute options into the attributes: roles given replace the list, extras are set one by one', async () => {
    const result = await h.run(
      'members',
      'update',
      'm1',
      '--is-member',
      'no',
      '--contact-number',
      '555',
      '--label-name',
      '',
      '--role',
      'r2:Reader',
      '--role',
      'r3:Writer',
      '--attribute',
      'tier=silver',
      '--remove-attribute',
      'zone',
      '--json',
    );
    expect(result.code).toBe(0);
    const attributes = {
      isMember: false,
      contactNumber: '555',
      roles: [
        { id: 'r2', name: 'Reader' },
        { id: 'r3', name: 'Writer' },
      ],
      extra: { tier: 'silver' },
    };
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 'm1', email: 'ada@example.com', attributes });
    expect((await h.services.members.get('m1')).attributes).toStrictEqual(attributes);
  });

  it('--clear-roles and removing the last extra leave no roles and no extras', async () => {
    const result = await h.run('members', 'update', 'm1', '--clear-roles', '--remove-attribute', 'tier', '--remove-attribute', 'zone');
    expect(result.code).toBe(0);
    expect((await h.services.members.get('m1')).attributes).toStrictEqual({ isMember: true, labelName: 'Gold' });
  });

  it('refuses --clear-roles with --role, and one key both set and removed, before changing anything', async () => {
    const before = await h.services.members.get('m1');
    const roles = await h.run('members', 'update', 'm1', '--clear-roles', '--role', 'r2:Reader');
    expect(roles.code).toBe(2);
    expect(roles.stderr).toContain("option '--clear-roles' cannot be used with option '--role <id:name>'");
    const extra = await h.run('members', 'update', 'm1', '--attribute', 'tier=x', '--remove-attribute', 'tier');
    expect(extra).toMatchObject({ code: 2, stderr: 'error: --attribute and --remove-attribute name the same key\n' });
    const email = await h.run('members', 'update', 'm1', '--email', 'nope');
    expect(email).toMatchObject({ code: 2, stderr: 'error: --email must be an email address\n' });
    await expect(h.services.members.get('m1')).resolves.toStrictEqual(before);
  });

  it('fails clearly for an unknown member', async () => {
    const result = await h.run('members', 'update', 'ghost', '--label-name', 'x');
    expect(result).toMatchObject({ code: 3, stderr: 'error: No member has this id: ghost\n', stdout: '' });
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
      expect(await h.run('members', verb, 'ghost')).toMatchObject({ code: 3, stderr: 'error: No member has this id: ghost\n' });
    }
  });
});

/** Sets up and confirms the member's second factor, as the account page does; returns its recovery codes. */
const enableSecondFactor = async (id: string) => (await confirmedFactor(h.services, id, Date.now())).recoveryCodes;

describe('members show and the second factor', () => {
  it('says whether the member has a confirmed second factor', async () => {
    await h.run(...ADA);
    await h.services.secondFactor.beginSetup('m1', 'ada@example.com');
    expect((await h.run('members', 'show', 'm1')).stdout).toMatch(/^second factor\s+no$/m);
    await h.services.secondFactor.remove('m1');
    await enableSecondFactor('m1');
    expect((await h.run('members', 'show', 'm1')).stdout).toMatch(/^second factor\s+yes$/m);
    expect(JSON.parse((await h.run('members', 'show', 'm1', '--json')).stdout)).toMatchObject({ id: 'm1', secondFactor: true });
  });
});

describe('members mfa status', () => {
  beforeEach(async () => {
    await h.run(...ADA);
  });

  it('shows none, a set-up in progress, and a confirmed factor with its recovery codes left', async () => {
    expect(await h.run('members', 'mfa', 'status', 'm1', '--json')).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse((await h.run('members', 'mfa', 'status', 'm1', '--json')).stdout)).toEqual({
      member: 'm1',
      enabled: false,
      pending: false,
      recoveryCodesLeft: 0,
    });

    await h.services.secondFactor.beginSetup('m1', 'ada@example.com');
    expect(JSON.parse((await h.run('members', 'mfa', 'status', 'm1', '--json')).stdout)).toEqual({
      member: 'm1',
      enabled: false,
      pending: true,
      recoveryCodesLeft: 0,
    });
    await h.services.secondFactor.remove('m1');

    const codes = await enableSecondFactor('m1');
    await h.services.secondFactor.check('m1', codes[0] ?? '');
    await h.services.secondFactor.check('m1', codes[1] ?? '');
    const text = await h.run('members', 'mfa', 'status', 'm1');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^member\s+m1$/m);
    expect(text.stdout).toMatch(/^enabled\s+yes$/m);
    expect(text.stdout).toMatch(/^pending\s+no$/m);
    expect(text.stdout).toMatch(/^recovery codes left\s+8$/m);
    expect(JSON.parse((await h.run('members', 'mfa', 'status', 'm1', '--json')).stdout)).toEqual({
      member: 'm1',
      enabled: true,
      pending: false,
      recoveryCodesLeft: 8,
    });
  });

  it('never prints the secret or a recovery code', async () => {
    const { secret, recoveryCodes: codes } = await confirmedFactor(h.services, 'm1', Date.now());
    for (const args of [['members', 'mfa', 'status', 'm1'], ['members', 'mfa', 'status', 'm1', '--json'], ['members', 'show', 'm1', '--json']]) {
      const output = JSON.stringify(await h.run(...args));
      for (const value of [secret, ...codes]) expect(output).not.toContain(value);
    }
  });

  it('fails clearly for an unknown member, and requires the id', async () => {
    expect(await h.run('members', 'mfa', 'status', 'ghost')).toMatchObject({ code: 3, stderr: 'error: No member has this id: ghost\n', stdout: '' });
    const missing = await h.run('members', 'mfa', 'status');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: missing required argument 'id'");
    expect(await h.run('members', 'mfa', 'status', ' ')).toMatchObject({ code: 2, stderr: 'error: ID must not be empty\n' });
  });
});

describe('members mfa reset', () => {
  beforeEach(async () => {
    await h.run(...ADA);
    await h.run('members', 'add', '--id', 'm2', '--username', 'bob');
  });

  it('removes a confirmed factor and its recovery codes, and says so', async () => {
    const codes = await enableSecondFactor('m1');
    await h.services.secondFactor.check('m1', codes[0] ?? '');
    await enableSecondFactor('m2');
    const result = await h.run('members', 'mfa', 'reset', 'm1');
    expect(result).toMatchObject({ code: 0, stdout: 'Second factor of member m1 removed, with its 9 unused recovery codes.\n', stderr: '' });
    await expect(h.services.secondFactor.status('m1')).resolves.toEqual({ enabled: false, pending: false, recoveryCodesLeft: 0 });
    await expect(h.services.secondFactor.check('m1', codes[1] ?? '')).resolves.toEqual({ ok: false });
    // Only that member's.
    await expect(h.services.secondFactor.status('m2')).resolves.toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    expect((await h.run('members', 'show', 'm1')).stdout).toMatch(/^second factor\s+no$/m);
  });

  it('removes a set-up in progress, and reports a member without one as not found', async () => {
    await h.services.secondFactor.beginSetup('m1', 'ada@example.com');
    expect(await h.run('members', 'mfa', 'reset', 'm1')).toMatchObject({
      code: 0,
      stdout: 'Second factor of member m1 removed: it was being set up, not yet confirmed.\n',
    });
    await expect(h.services.secondFactor.status('m1')).resolves.toEqual({ enabled: false, pending: false, recoveryCodesLeft: 0 });
    expect(await h.run('members', 'mfa', 'reset', 'm1')).toEqual({ code: 3, stdout: '', stderr: 'error: Member m1 has no second factor: nothing to remove\n' });
  });

  it('lets the member set a new factor up afterwards', async () => {
    await enableSecondFactor('m1');
    await h.run('members', 'mfa', 'reset', 'm1');
    await expect(enableSecondFactor('m1')).resolves.toHaveLength(10);
  });

  it('fails clearly for an unknown member', async () => {
    expect(await h.run('members', 'mfa', 'reset', 'ghost')).toMatchObject({ code: 3, stderr: 'error: No member has this id: ghost\n', stdout: '' });
  });
});
