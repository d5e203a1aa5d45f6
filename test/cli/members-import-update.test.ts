import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliContext } from '../../src/cli/context.js';
import type { Services } from '../../src/service/index.js';
import type { MemberService } from '../../src/service/members.js';
import type { Store } from '../../src/store/store.js';
import { CALL } from '../helpers/call-context.js';
import { runWith, type CliResult } from '../helpers/cli-harness.js';
import { describeWithPostgres, tempPostgresStore } from '../helpers/postgres.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { servicesOver } from '../helpers/test-services.js';

/**
 * `members import --update --disable-missing` keeping the members in step with the old store's weekly export:
 * what a week of changes does to sign-in and to the results partners get, through the CLI, on each store.
 */

const CALLER_PASSWORD = 'portal caller password';
const SALT = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
const PASSWORD = { ada: 'ada password', bob: 'bob password', eve: 'eve password' } as const;
const HEADER = 'id,username,email,first_name,last_name,password_hash,password_format,salt,is_member,roles';

/** The password cells of SqlMembershipProvider's SHA1 scheme: hash, format 1, salt. */
function sha1Cells(password: string): string {
  const hash = createHash('sha1')
    .update(Buffer.concat([SALT, Buffer.from(password, 'utf16le')]))
    .digest('base64');
  return `${hash},1,${SALT.toString('base64')}`;
}

const NO_PASSWORD = ',,';

/** The export of the first week: six members. */
const WEEK_1 = [
  HEADER,
  `m1,ada,ada@example.org,Ada,Lovelace,${sha1Cells(PASSWORD.ada)},yes,r1:Reader`,
  `m2,bob,bob@example.org,Bob,Baker,${sha1Cells(PASSWORD.bob)},yes,r1:Reader`,
  `m3,cy,cy@example.org,Cy,Young,${NO_PASSWORD},yes,r1:Reader`,
  `m4,dee,dee@example.org,Dee,Dee,${NO_PASSWORD},yes,r1:Reader`,
  `m5,eve,eve@example.org,Eve,Evans,${sha1Cells(PASSWORD.eve)},yes,r1:Reader`,
  `m6,flo,flo@example.org,Flo,Fox,${NO_PASSWORD},yes,r1:Reader`,
];

/**
 * A week later: ada's email changed, bob's membership lapsed, cy's name changed, dee has a new role, eve left
 * (her row is gone), flo is as she was, gus joined. The password cells are the old store's, as exports have them.
 */
const WEEK_2 = [
  HEADER,
  `m1,ada,ada@lovelace.example,Ada,Lovelace,${sha1Cells(PASSWORD.ada)},yes,r1:Reader`,
  `m2,bob,bob@example.org,Bob,Baker,${sha1Cells(PASSWORD.bob)},no,r1:Reader`,
  `m3,cy,cy@example.org,Cy,Young-Smith,${NO_PASSWORD},yes,r1:Reader`,
  `m4,dee,dee@example.org,Dee,Dee,${NO_PASSWORD},yes,r1:Reader|r2:Editor`,
  `m6,flo,flo@example.org,Flo,Fox,${NO_PASSWORD},yes,r1:Reader`,
  `m7,gus,gus@example.org,Gus,Grant,${NO_PASSWORD},yes,`,
];

const WEEK_2_REPORT = [
  'line,id,status,reason',
  '2,m1,updated,email',
  '3,m2,updated,is_member',
  '4,m3,updated,last_name',
  '5,m4,updated,roles',
  '6,m6,unchanged,',
  '7,m7,imported,',
  ',m5,disabled,not in the file',
  '',
];

/** A store call: the method's name and its arguments. */
interface StoreCall {
  method: string;
  args: unknown[];
}

/** The store itself, every call of which is added to `calls` before it runs. */
function recordedStore(store: Store, calls: StoreCall[]): Store {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        calls.push({ method: property, args });
        return Reflect.apply(value, target, args);
      };
    },
  });
}

/** The same suite on each store. */
function weeklyImportOn(openStore: () => Promise<{ store: Store; cleanup: () => Promise<void> }>): void {
  let store: Store;
  let services: Services;
  let cleanupStore: () => Promise<void>;
  let dir: string;

  beforeEach(async () => {
    ({ store, cleanup: cleanupStore } = await openStore());
    // Sessions cached for a minute: the changes must reach sign-in and verification at once all the same.
    services = servicesOver(store, { cacheTtlMs: 60_000 });
    await services.callers.add('portal', CALLER_PASSWORD);
    dir = await mkdtemp(join(tmpdir(), 'members-import-update-'));
    const first = await run('members', 'import', await csvFile('week-1.csv', WEEK_1));
    expect(first).toMatchObject({ code: 0, stdout: expect.stringMatching(/^6 imported, 0 already there, 0 refused, in /) });
  });
  afterEach(async () => {
    await cleanupStore();
    await rm(dir, { recursive: true, force: true });
  });

  function contextOver(members: MemberService = services.members): Omit<CliContext, 'io'> {
    return {
      config: () => {
        throw new Error('the admin commands under test do not read the configuration');
      },
      withServices: (fn) => fn({ ...services, members }),
    };
  }

  function run(...args: string[]): Promise<CliResult> {
    return runWith(contextOver(), ...args);
  }

  async function csvFile(name: string, lines: string[]): Promise<string> {
    const file = join(dir, name);
    await writeFile(file, `${lines.join('\r\n')}\r\n`);
    return file;
  }

  async function signIn(login: string, password: string): Promise<string | null> {
    const result = await services.signin.signIn({ login, password, clientAddress: '192.0.2.1', cookieDomain: 'example.org' });
    return result.ok ? result.issued.token : null;
  }

  /** The member AuthenticateToken answers for the token, as the partner gets it; null when it is refused. */
  async function verified(token: string) {
    const outcome = await services.authentication.authenticateToken({ securityPassword: CALLER_PASSWORD, token }, CALL);
    return outcome.kind === 'member' ? outcome.member : null;
  }

  /** Everything the import may write: the members with their password hashes, and the sessions. */
  async function storedState(): Promise<unknown> {
    const members = await Promise.all((await store.listMembers()).map((member) => store.getMemberCredentials(member.id)));
    return { members, sessions: await store.listSessions() };
  }

  it("brings a week's changes in: new member, email, lapsed membership, name, roles, and the member who left", async () => {
    const bobToken = await signIn('bob', PASSWORD.bob);
    const eveToken = await signIn('eve@example.org', PASSWORD.eve);
    if (!bobToken || !eveToken) throw new Error('the members of the first week cannot sign in');
    // Verified once before the import, so that the sessions are cached.
    expect((await verified(bobToken))?.attributes.isMember).toBe(true);
    expect((await verified(eveToken))?.id).toBe('m5');

    const reportPath = join(dir, 'report.csv');
    const week2 = await csvFile('week-2.csv', WEEK_2);
    const result = await run('members', 'import', week2, '--update', '--disable-missing', '--report', reportPath);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(
      /^disabled member m5 \(eve\): not in the file\n1 imported, 4 updated, 1 disabled, 1 unchanged, 0 refused, in \d+\.\d s\.\n$/,
    );
    expect(result.code).toBe(0);
    expect((await readFile(reportPath, 'utf8')).split('\n')).toEqual(WEEK_2_REPORT);

    expect(await signIn('ada@lovelace.example', PASSWORD.ada)).not.toBeNull();
    expect(await signIn('ada@example.org', PASSWORD.ada)).toBeNull();
    expect((await verified(bobToken))?.attributes.isMember).toBe(false);
    await expect(services.members.get('m3')).resolves.toMatchObject({ firstName: 'Cy', lastName: 'Young-Smith' });
    expect((await services.members.get('m4')).attributes.roles).toEqual([
      { id: 'r1', name: 'Reader' },
      { id: 'r2', name: 'Editor' },
    ]);
    await expect(services.members.get('m5')).resolves.toMatchObject({ enabled: false });
    expect(await verified(eveToken)).toBeNull();
    await expect(services.sessions.checkToken(eveToken)).resolves.toEqual({ ok: false, reason: 'member-disabled' });
    expect(await signIn('eve', PASSWORD.eve)).toBeNull();
    await expect(services.members.get('m7')).resolves.toMatchObject({ username: 'gus', enabled: true, attributes: { isMember: true } });

    const again = await run('members', 'import', week2, '--update', '--disable-missing', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      refused: [],
      disabled: [],
      summary: {
        rowsTotal: 6,
        rowsDone: 6,
        imported: 0,
        existing: 0,
        updated: 0,
        unchanged: 6,
        refused: 0,
        disabled: 0,
        notDisabledBecause: null,
        interrupted: false,
        seconds: expect.any(Number),
      },
    });
    expect(again.stderr).toMatch(/^0 imported, 0 updated, 0 disabled, 6 unchanged, 0 refused, in \d+\.\d s\.\n$/);
  });

  it('writes nothing with --dry-run, and prints what the run would change', async () => {
    const eveToken = await signIn('eve', PASSWORD.eve);
    const before = await storedState();
    const week2 = await csvFile('week-2.csv', WEEK_2);
    const reportPath = join(dir, 'report.csv');
    const dry = await run('members', 'import', week2, '--update', '--disable-missing', '--dry-run', '--report', reportPath);
    expect(dry).toEqual({
      code: 0,
      stdout: expect.stringMatching(
        /^would disable member m5 \(eve\): not in the file\nDry run, nothing written: 1 to import, 4 to update, 1 to disable, 1 unchanged, 0 refused, in \d+\.\d s\.\n$/,
      ),
      stderr: '',
    });
    expect((await readFile(reportPath, 'utf8')).split('\n')).toEqual(WEEK_2_REPORT);
    const json = await run('members', 'import', week2, '--update', '--disable-missing', '--dry-run', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      refused: [],
      disabled: [{ id: 'm5', username: 'eve' }],
      summary: { imported: 1, updated: 4, unchanged: 1, disabled: 1, dryRun: true },
    });
    expect(await storedState()).toEqual(before);
    expect((await verified(eveToken ?? ''))?.id).toBe('m5');
  });

  it('disables nobody when a row of the file is refused, says so, and fails', async () => {
    const eveToken = await signIn('eve', PASSWORD.eve);
    const file = await csvFile('week-2.csv', [...WEEK_2, `m8,hal,hal@example.org,Hal,Hill,${NO_PASSWORD},maybe,`]);
    const result = await run('members', 'import', file, '--update', '--disable-missing');
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      'refused line 8 (id m8): is_member "maybe" is not one of true, false, 1, 0, yes or no',
      expect.stringMatching(
        /^1 imported, 4 updated, 0 disabled, 1 unchanged, 1 refused, in \d+\.\d s\. No member was disabled: a row was refused, and --disable-missing disables members only after a file without a refused row\. Fix the file and run the command again\.$/,
      ),
      '',
    ]);
    await expect(services.members.get('m5')).resolves.toMatchObject({ enabled: true });
    expect((await verified(eveToken ?? ''))?.id).toBe('m5');
    await expect(services.members.get('m1')).resolves.toMatchObject({ email: 'ada@lovelace.example' });
  });

  it('changes only the columns the file has', async () => {
    const file = await csvFile('emails.csv', ['id,username,email', 'm1,ada,ada@lovelace.example', 'm2,bob,bob@example.org']);
    const result = await run('members', 'import', file, '--update');
    expect(result.stdout).toMatch(/^0 imported, 1 updated, 1 unchanged, 0 refused, in \d+\.\d s\.\n$/);
    const ada = await services.members.get('m1');
    expect(ada).toMatchObject({ email: 'ada@lovelace.example', firstName: 'Ada', lastName: 'Lovelace', enabled: true });
    expect(ada.attributes).toStrictEqual({ isMember: true, roles: [{ id: 'r1', name: 'Reader' }] });
    expect(await signIn('ada', PASSWORD.ada)).not.toBeNull();
  });

  it("reads the stored members of a batch's rows at once, and the members to disable a page at a time", async () => {
    const rows = Array.from({ length: 2500 }, (_, n) => `x${n},user${n},user${n}@example.org`);
    const file = await csvFile('many.csv', ['id,username,email', ...rows]);
    expect((await run('members', 'import', file)).code).toBe(0);
    const calls: StoreCall[] = [];
    // A clock that stands still: a batch is written once it has 1,000 rows, never because it is a second old.
    const now = Date.now();
    const recording = servicesOver(recordedStore(store, calls), { clock: () => now });
    for (const dryRun of [['--dry-run'], []]) {
      calls.length = 0;
      const result = await runWith(contextOver(recording.members), 'members', 'import', file, '--update', '--disable-missing', '--json', ...dryRun);
      expect(JSON.parse(result.stdout).summary).toMatchObject({ unchanged: 2500, disabled: 6, refused: 0 });
      const methods = calls.map(({ method }) => method);
      expect(methods.filter((method) => method === 'getMembers')).toHaveLength(3);
      expect(methods).not.toContain('getMember');
      expect(methods).not.toContain('listMembers');
      const pages = calls.filter(({ method }) => method === 'listMembersAfter');
      expect(pages.length).toBeGreaterThanOrEqual(3);
      expect(pages.every(({ args }) => (args[1] as number) <= 1000)).toBe(true);
    }
    expect((await services.members.list()).filter((member) => !member.enabled).map((member) => member.id)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);
  });

  it('is finished after Ctrl-C by running it again: the rows updated before are unchanged, then the missing disabled', async () => {
    const rows = (email: (n: number) => string) => Array.from({ length: 2500 }, (_, n) => `x${n},user${n},${email(n)}`);
    expect((await run('members', 'import', await csvFile('many.csv', ['id,username,email', ...rows((n) => `old${n}@example.org`)]))).code).toBe(0);
    const changed = await csvFile('changed.csv', ['id,username,email', ...rows((n) => `new${n}@example.org`)]);
    // Ctrl-C while the first batch (1,000 rows) is being written; the clock stands still, so that the batch is
    // cut by its size alone, never because a loaded machine took a second to read it.
    const now = services.members.clock();
    const members = new Proxy(services.members, {
      get(target, property) {
        if (property === 'clock') return () => now;
        if (property === 'update') {
          return (...args: Parameters<MemberService['update']>) => {
            process.emit('SIGINT');
            return target.update(...args);
          };
        }
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const interrupted = await runWith(contextOver(members), 'members', 'import', changed, '--update', '--disable-missing');
    expect(interrupted.code).toBe(130);
    expect(interrupted.stdout).toMatch(
      new RegExp(
        '^Interrupted after 1,000 of 2,500 rows: 0 imported, 1,000 updated, 0 disabled, 0 unchanged, 0 refused, in \\d+\\.\\d s\\. ' +
          'Run the same command again to import the other 1,500: the rows imported or updated will be reported as unchanged\\. ' +
          'No member was disabled: --disable-missing waits for the end of the file\\.\\n$',
      ),
    );
    expect((await services.members.list()).filter((member) => !member.enabled)).toEqual([]);

    const again = await run('members', 'import', changed, '--update', '--disable-missing', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).summary).toMatchObject({ imported: 0, updated: 1500, unchanged: 1000, disabled: 6, refused: 0 });
    const stored = await services.members.list();
    expect(stored.filter((member) => member.id.startsWith('x') && member.email !== `new${member.id.slice(1)}@example.org`)).toEqual([]);
    expect(stored.filter((member) => !member.enabled).map((member) => member.id)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);
  });
}

describe('members import --update on SQLite', () => weeklyImportOn(tempSqliteStore));
describeWithPostgres('members import --update on PostgreSQL', () => weeklyImportOn(tempPostgresStore));
