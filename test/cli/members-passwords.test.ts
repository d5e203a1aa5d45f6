import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { CliContext } from '../../src/cli/context.js';
import { createServices, type Services } from '../../src/service/index.js';
import { verifyPassword } from '../../src/service/passwords.js';
import type { Store } from '../../src/store/store.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { runWith, type CliResult } from './harness.js';

const HEADER = 'id,username,email,first_name,last_name,password_hash,password_format,salt';

let store: Store;
let services: Services;
let cleanupStore: () => Promise<void>;
let dir: string;
const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')!;

// The harness's services, with the store at hand to read password hashes, which no command prints.
beforeEach(async () => {
  ({ store, cleanup: cleanupStore } = await tempSqliteStore());
  services = createServices({
    store,
    secretKey: randomBytes(32),
    session: { absoluteTimeoutSeconds: 3600, idleTimeoutSeconds: 600, slidingIdle: true },
  });
  await services.members.add({ id: 'm1', username: 'ada' });
  dir = await mkdtemp(join(tmpdir(), 'members-import-'));
});
afterEach(async () => {
  Object.defineProperty(process, 'stdin', stdin);
  await cleanupStore();
  await rm(dir, { recursive: true, force: true });
});

function run(...args: string[]): Promise<CliResult> {
  const ctx: Omit<CliContext, 'io'> = {
    config: () => {
      throw new Error('the admin commands under test do not read the configuration');
    },
    withServices: (fn) => fn(services),
  };
  return runWith(ctx, ...args);
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
    const result = await run('members', 'set-password', '--id', 'm1', '--password', 'correct horse');
    expect(result).toEqual({ code: 0, stdout: 'Password of member m1 set.\n', stderr: '' });
    expect(await passwordOf('m1')).toMatch(/^\$argon2id\$/);
    await expectPassword('m1', 'correct horse');
  });

  it('asks twice on a terminal, with echo off, and never prints the password', async () => {
    const terminal = fakeStdin('correct horse\rcorrect horse\r', true);
    const result = await run('members', 'set-password', '--id', 'm1');
    expect(result).toEqual({ code: 0, stdout: 'Password of member m1 set.\n', stderr: 'New password: \nRepeat the new password: \n' });
    expect(terminal.rawModes).toEqual([true, false]);
    await expectPassword('m1', 'correct horse');
  });

  it('refuses two different entries and leaves the password as it was', async () => {
    fakeStdin('correct horse\rcorrect hoarse\r', true);
    const result = await run('members', 'set-password', '--id', 'm1');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('New password: \nRepeat the new password: \nerror: the two passwords differ\n');
    expect(await passwordOf('m1')).toBeNull();
  });

  it('reads one line from a pipe', async () => {
    fakeStdin('correct horse\nnot this line\n', false);
    expect(await run('members', 'set-password', '--id', 'm1')).toEqual({ code: 0, stdout: 'Password of member m1 set.\n', stderr: '' });
    await expectPassword('m1', 'correct horse');
  });

  it('fails when nothing is entered', async () => {
    fakeStdin('', false);
    expect(await run('members', 'set-password', '--id', 'm1')).toEqual({ code: 1, stdout: '', stderr: 'error: no password was entered\n' });
  });

  it('refuses a short password and an unknown member, the latter before asking', async () => {
    const short = await run('members', 'set-password', '--id', 'm1', '--password', 'seven77');
    expect(short).toEqual({ code: 1, stdout: '', stderr: 'error: A member password must be at least 8 characters long\n' });
    const long = await run('members', 'set-password', '--id', 'm1', '--password', 'x'.repeat(1025));
    expect(long).toEqual({ code: 1, stdout: '', stderr: 'error: A member password must be at most 1024 characters long\n' });
    fakeStdin('correct horse\rcorrect horse\r', true);
    const unknown = await run('members', 'set-password', '--id', 'ghost');
    expect(unknown).toEqual({ code: 1, stdout: '', stderr: 'error: No member has this id: ghost\n' });
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

  it('prints a row per line of the file and a summary, and fails when a row was refused', async () => {
    const file = await csvFile([HEADER, GOOD, BAD]);
    const result = await run('members', 'import', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^LINE\s+ID\s+STATUS\s+REASON$/);
    expect(lines[1]).toMatch(/^2\s+m2\s+imported\s+-$/);
    expect(lines[2]).toMatch(/^3\s+m3\s+refused\s+encrypted passwords \(PasswordFormat 2\) cannot be imported: /);
    expect(lines[3]).toBe('1 imported, 1 refused.');
    const credentials = await store.getMemberCredentials('m2');
    await expect(verifyPassword(credentials?.passwordHash ?? '', 'old password')).resolves.toEqual({ ok: true, needsRehash: true });
    await expect(store.getMember('m3')).resolves.toBeNull();

    const again = await run('members', 'import', file);
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(/^2\s+m2\s+refused\s+A member with this id or username already exists: m2$/m);
    expect(again.stdout).toMatch(/^0 imported, 2 refused\.$/m);
  });

  it('succeeds when every row is imported, and reads UTF-16 files', async () => {
    const result = await run('members', 'import', await csvFile([HEADER, GOOD], 'utf16le'));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^1 imported, 0 refused\.$/m);
    await expect(services.members.get('m2')).resolves.toMatchObject({ username: 'bob', lastName: 'Smith' });
  });

  it('prints JSON with --json, and the summary on stderr', async () => {
    const result = await run('members', 'import', await csvFile([HEADER, GOOD, BAD]), '--json');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual([
      { line: 2, id: 'm2', status: 'imported', reason: null },
      { line: 3, id: 'm3', status: 'refused', reason: expect.stringMatching(/^encrypted passwords/) },
    ]);
    expect(result.stderr).toBe('1 imported, 1 refused.\n');
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
    const headerless = await run('members', 'import', await csvFile([GOOD]));
    expect(headerless.code).toBe(1);
    expect(headerless.stderr).toContain(
      `error: The member file cannot be imported: unknown column "m2": the header row is ${HEADER}, and may add is_member, `,
    );
    await expect(store.getMember('m2')).resolves.toBeNull();
  });
});
