import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { CliContext } from '../../src/cli/context.js';
import type { Services } from '../../src/service/index.js';
import { verifyPassword } from '../../src/service/passwords.js';
import type { Store } from '../../src/store/store.js';
import { tempServices } from '../helpers/test-services.js';
import { runCli } from '../../src/cli/program.js';
import type { MemberService } from '../../src/service/members.js';
import { capturingIo, runWith, type CliResult } from '../helpers/cli-harness.js';

const HEADER = 'id,username,email,first_name,last_name,password_hash,password_format,salt';

let store: Store;
let services: Services;
let cleanupStore: () => Promise<void>;
let dir: string;
const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')!;

// The harness's services, with the store at hand to read password hashes, which no command prints.
beforeEach(async () => {
  ({ store, services, cleanup: cleanupStore } = await tempServices({ session: { absoluteTimeoutSeconds: 3600, idleTimeoutSeconds: 600, slidingIdle: true } }));
  await services.members.add({ id: 'm1', username: 'ada' });
  dir = await mkdtemp(join(tmpdir(), 'members-import-'));
});
afterEach(async () => {
  Object.defineProperty(process, 'stdin', stdin);
  await cleanupStore();
  await rm(dir, { recursive: true, force: true });
});

function contextOver(over: Services): Omit<CliContext, 'io'> {
  return {
    config: () => {
      throw new Error('the admin commands under test do not read the configuration');
    },
    withServices: (fn) => fn(over),
  };
}

function run(...args: string[]): Promise<CliResult> {
  return runWith(contextOver(services), ...args);
}

/** Standard input as a terminal that records its raw mode (echo off), or as a pipe. */
function fakeStdin(input: string, terminal: boolean): { rawModes: boolean[] } {
  const stream = Object.assign(new PassThrough(), {
    isTTY: terminal,
    rawModes: [] as boolean[],
    setRawMode(mode: boolean) {
      stream.rawModes.push(mode);
      return stream;
    },
  });
  stream.end(input);
  Object.defineProperty(process, 'stdin', { value: stream, configurable: true });
  return stream;
}

async function passwordOf(id: string): Promise<string | null> {
  return (await store.getMemberCredentials(id))?.passwordHash ?? null;
}

async function expectPassword(id: string, password: string): Promise<void> {
  await expect(verifyPassword((await passwordOf(id)) ?? '', password)).resolves.toEqual({ ok: true, needsRehash: false });
}

describe('members set-password', () => {
  it('stores an argon2id hash of the password given with --password', async () => {
    const result = await run('members', 'set-password', 'm1', '--password', 'correct horse');
    expect(result).toEqual({ code: 0, stdout: 'Password of member m1 set.\n', stderr: '' });
    expect(await passwordOf('m1')).toMatch(/^\$argon2id\$/);
    await expectPassword('m1', 'correct horse');
  });

  it('asks twice on a terminal, with echo off, and never prints the password', async () => {
    const terminal = fakeStdin('correct horse\rcorrect horse\r', true);
    const result = await run('members', 'set-password', 'm1');
    expect(result).toEqual({ code: 0, stdout: 'Password of member m1 set.\n', stderr: 'New password: \nRepeat the new password: \n' });
    expect(terminal.rawModes).toEqual([true, false]);
    await expectPassword('m1', 'correct horse');
  });

  it('refuses two different entries and leaves the password as it was', async () => {
    fakeStdin('correct horse\rcorrect hoarse\r', true);
    const result = await run('members', 'set-password', 'm1');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('New password: \nRepeat the new password: \nerror: the two passwords differ\n');
    expect(await passwordOf('m1')).toBeNull();
  });

  it('reads one line from a pipe', async () => {
    fakeStdin('correct horse\nnot this line\n', false);
    expect(await run('members', 'set-password', 'm1')).toEqual({ code: 0, stdout: 'Password of member m1 set.\n', stderr: '' });
    await expectPassword('m1', 'correct horse');
  });

  it('fails when nothing is entered', async () => {
    fakeStdin('', false);
    expect(await run('members', 'set-password', 'm1')).toEqual({ code: 1, stdout: '', stderr: 'error: no password was entered\n' });
  });

  it('refuses a short password and an unknown member, the latter before asking', async () => {
    const short = await run('members', 'set-password', 'm1', '--password', 'seven77');
    expect(short).toEqual({ code: 1, stdout: '', stderr: 'error: A member password must be at least 8 characters long\n' });
    const long = await run('members', 'set-password', 'm1', '--password', 'x'.repeat(1025));
    expect(long).toEqual({ code: 1, stdout: '', stderr: 'error: A member password must be at most 1024 characters long\n' });
    fakeStdin('correct horse\rcorrect horse\r', true);
    const unknown = await run('members', 'set-password', 'ghost');
    expect(unknown).toEqual({ code: 3, stdout: '', stderr: 'error: No member has this id: ghost\n' });
    expect(await passwordOf('m1')).toBeNull();
  });
});

describe('members import', () => {
  const salt = Buffer.alloc(16, 7);
  const sha1 = createHash('sha1')
    .update(Buffer.concat([salt, Buffer.from('old password', 'utf16le')]))
    .digest('base64');
  const GOOD = `m2,bob,bob@example.org,Bob,Smith,${sha1},1,${salt.toString('base64')}`;
  const BAD = 'm3,carol,,,,c2VjcmV0,2,';

  async function csvFile(lines: string[], encoding: 'utf8' | 'utf16le' = 'utf8'): Promise<string> {
    const file = join(dir, 'members.csv');
    const bom = encoding === 'utf16le' ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0);
    await writeFile(file, Buffer.concat([bom, Buffer.from(lines.join('\n'), encoding)]));
    return file;
  }

  it('prints the refused rows and a summary, fails when a row was refused, and reports rows imported before as there already', async () => {
    const file = await csvFile([HEADER, GOOD, BAD]);
    const result = await run('members', 'import', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^refused line 3 \(id m3\): encrypted passwords \(PasswordFormat 2\) cannot be imported: /);
    expect(lines[1]).toMatch(/^1 imported, 0 already there, 1 refused, in \d+\.\d s\.$/);
    const credentials = await store.getMemberCredentials('m2');
    await expect(verifyPassword(credentials?.passwordHash ?? '', 'old password')).resolves.toEqual({ ok: true, needsRehash: true });
    await expect(store.getMember('m3')).resolves.toBeNull();

    const again = await run('members', 'import', file);
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(/^refused line 3 \(id m3\): encrypted passwords/m);
    expect(again.stdout).toMatch(/^0 imported, 1 already there, 1 refused, in \d+\.\d s\.$/m);
  });

  it('succeeds when every row is imported, and reads UTF-16 files', async () => {
    const result = await run('members', 'import', await csvFile([HEADER, GOOD], 'utf16le'));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^1 imported, 0 already there, 0 refused, in \d+\.\d s\.\n$/);
    await expect(services.members.get('m2')).resolves.toMatchObject({ username: 'bob', lastName: 'Smith' });
  });

  it('succeeds when every row is there already', async () => {
    const file = await csvFile([HEADER, GOOD]);
    expect((await run('members', 'import', file)).code).toBe(0);
    const again = await run('members', 'import', file);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^0 imported, 1 already there, 0 refused, in \d+\.\d s\.\n$/);
  });

  it('prints one JSON document with --json, the refused rows and the counts, and the summary on stderr', async () => {
    const result = await run('members', 'import', await csvFile([HEADER, GOOD, BAD, 'm4,dave,,,,,,']), '--json');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      refused: [{ line: 3, id: 'm3', reason: expect.stringMatching(/^encrypted passwords/) }],
      summary: { rowsTotal: 3, rowsDone: 3, imported: 2, existing: 0, refused: 1, interrupted: false, seconds: expect.any(Number) },
    });
    expect(result.stderr).toMatch(/^2 imported, 0 already there, 1 refused, in \d+\.\d s\.\n$/);

    const none = await run('members', 'import', await csvFile([HEADER]), '--json');
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout)).toMatchObject({ refused: [], summary: { rowsTotal: 0, rowsDone: 0 } });
  });

  it('writes every row with --report, the ids as stored, and refuses a report that would overwrite the file', async () => {
    const file = await csvFile([HEADER, GOOD, BAD, 'm4,"dave, jr",,,,,,']);
    const reportPath = join(dir, 'report.csv');
    expect((await run('members', 'import', file, '--report', reportPath)).code).toBe(1);
    const lines = (await readFile(reportPath, 'utf8')).split('\n');
    expect(lines[0]).toBe('line,id,status,reason');
    expect(lines[1]).toBe('2,m2,imported,');
    expect(lines[2]).toMatch(/^3,m3,refused,"?encrypted passwords \(PasswordFormat 2\) cannot be imported: /);
    expect(lines.slice(3)).toEqual(['4,m4,imported,', '']);
    expect((await run('members', 'import', file, '--report', reportPath)).code).toBe(1);
    expect((await readFile(reportPath, 'utf8')).split('\n')[1]).toBe('2,m2,already there,');

    const same = await run('members', 'import', file, '--report', file);
    expect(same).toEqual({ code: 1, stdout: '', stderr: 'error: --report names the file being imported\n' });
    expect(await readFile(file, 'utf8')).toContain('dave, jr');
  });

  it('stops at Ctrl-C once the rows read so far are written, says how to finish, exits 130, and finishes when run again', async () => {
    const file = await csvFile([HEADER, ...Array.from({ length: 2500 }, (_, n) => `x${n},user${n},,,,,,`)]);
    const listeners = process.listenerCount('SIGINT');
    // Ctrl-C while the first batch (1,000 rows) is being written. The import's clock stands still, so that the
    // batch is cut by its size alone: a batch is also written once a second old, which a loaded machine reaches
    // before 1,000 rows are read (810 were, once).
    const now = services.members.clock();
    const members = new Proxy(services.members, {
      get(target, property) {
        if (property === 'clock') return () => now;
        if (property === 'addMany') {
          return async (list: Parameters<MemberService['addMany']>[0]) => {
            const outcomes = await target.addMany(list);
            process.emit('SIGINT');
            return outcomes;
          };
        }
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const result = await runWith(contextOver({ ...services, members }), 'members', 'import', file);
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('Stopping once the rows read so far are written (Ctrl-C again stops at once)…\n');
    expect(result.stdout).toMatch(
      /^Interrupted after 1,000 of 2,500 rows: 1,000 imported, 0 already there, 0 refused, in \d+\.\d s\. Run the same command again to import the other 1,500: the rows imported will be reported as already there\.\n$/,
    );
    expect(process.listenerCount('SIGINT')).toBe(listeners);
    expect(await services.members.list()).toHaveLength(1001);

    const again = await run('members', 'import', file);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^1,500 imported, 1,000 already there, 0 refused, in \d+\.\d s\.\n$/);
    expect(await services.members.list()).toHaveLength(2501);
  });

  it('draws its progress on one line of a terminal, and takes it away before the summary', async () => {
    const file = await csvFile([HEADER, GOOD, BAD]);
    const io = { ...capturingIo(), errIsTerminal: true };
    const code = await runCli(['members', 'import', file], { ...contextOver(services), io }, '9.9.9-test');
    expect(code).toBe(1);
    expect(io.stderr).toContain('\r\x1b[2Kimported 2 of 2 rows');
    expect(io.stderr.endsWith('\r\x1b[2K')).toBe(true);
    expect(io.stderr).not.toContain('\n');
    expect(io.stdout).toMatch(/^refused line 3 \(id m3\): encrypted passwords.*\n1 imported, 0 already there, 1 refused, in \d+\.\d s\.\n$/);
  });

  it('takes --hash-algorithm in any case and refuses unknown ones', async () => {
    const sha256 = createHash('sha256')
      .update(Buffer.concat([salt, Buffer.from('old password', 'utf16le')]))
      .digest('base64');
    const file = await csvFile([HEADER, `m2,bob,,,,${sha256},1,${salt.toString('base64')}`]);
    const bogus = await run('members', 'import', file, '--hash-algorithm', 'ROT13');
    expect(bogus).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --hash-algorithm must be one of SHA1, HMACSHA256, SHA256, SHA512, MD5, HMACSHA512\n',
    });
    expect((await run('members', 'import', file, '--hash-algorithm', 'sha256')).code).toBe(0);
    const credentials = await store.getMemberCredentials('m2');
    await expect(verifyPassword(credentials?.passwordHash ?? '', 'old password')).resolves.toMatchObject({ ok: true });
  });

  it('fails clearly for a missing file or a file it cannot import', async () => {
    const missing = await run('members', 'import', join(dir, 'nope.csv'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: ENOENT: no such file or directory/);
    const headerless = await run('members', 'import', await csvFile([GOOD]), '--json');
    expect(headerless.code).toBe(1);
    expect(headerless.stdout).toBe('');
    expect(headerless.stderr).toContain(
      `error: The member file cannot be imported: unknown column "m2": the header row is ${HEADER}, and may add is_member, `,
    );
    await expect(store.getMember('m2')).resolves.toBeNull();
  });
});
