import { cliHarness } from '../helpers/cli-harness.js';

let h: Awaited<ReturnType<typeof cliHarness>>;

beforeEach(async () => {
  h = await cliHarness();
});
afterEach(() => h.cleanup());

interface Printed {
  time: string;
  type: string;
  memberId: string | null;
  actor: { kind: string; id?: string };
  reason: string | null;
  outcome: string | null;
  clientAddress: string | null;
}

async function listed(...args: string[]): Promise<Printed[]> {
  const result = await h.run('events', 'list', ...args, '--json');
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as Printed[];
}

async function aFailedAndASucceededSignIn(): Promise<void> {
  await h.run('members', 'add', '--id', 'm1', '--username', 'ada');
  await h.services.members.setPassword('m1', 'correct horse battery');
  const place = { cookieDomain: 'example.org', clientAddress: '198.51.100.7', device: 'Firefox on Windows', requestId: 'r-1' };
  await h.services.signin.signIn({ ...place, login: 'ada', password: 'wrong horse battery' });
  await h.services.signin.signIn({ ...place, login: 'ada', password: 'correct horse battery' });
}

describe('events list', () => {
  it('prints a JSON array newest first, each with its time, type, member, actor and a refusal its reason', async () => {
    await aFailedAndASucceededSignIn();
    await h.run('members', 'disable', 'm1');
    const events = await listed();
    expect(events.map((event) => [event.type, event.memberId, event.actor, event.reason])).toEqual([
      ['member-disabled', 'm1', { kind: 'cli' }, null],
      ['signin-succeeded', 'm1', { kind: 'member', id: 'm1' }, null],
      ['signin-failed', 'm1', { kind: 'member', id: 'm1' }, 'wrong-password'],
      ['member-created', 'm1', { kind: 'cli' }, null],
    ]);
    expect(events[2]).toMatchObject({ clientAddress: '198.51.100.7', device: 'Firefox on Windows', requestId: 'r-1', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
  });

  it('filters by member, type and time, and limits', async () => {
    await aFailedAndASucceededSignIn();
    await h.services.signin.signIn({ cookieDomain: 'example.org', clientAddress: '198.51.100.8', login: 'nobody', password: 'whatever it is' });
    expect((await listed('--type', 'signin-failed')).map((event) => [event.memberId, event.reason])).toEqual([
      [null, 'unknown-login'],
      ['m1', 'wrong-password'],
    ]);
    expect((await listed('--member', 'm1', '--type', 'signin-failed')).map((event) => event.reason)).toEqual(['wrong-password']);
    expect(await listed('--member', 'm1', '--limit', '2')).toHaveLength(2);
    expect(await listed('--since', '1h')).toHaveLength(4);
    expect(await listed('--since', '2999-01-01')).toEqual([]);
    expect(await listed('--since', '2000-01-01T00:00:00Z', '--member', 'nobody')).toEqual([]);
  });

  it('prints a table without --json, and a line when there is none', async () => {
    expect(await h.run('events', 'list')).toMatchObject({ code: 0, stdout: 'No events.\n' });
    await aFailedAndASucceededSignIn();
    const { stdout } = await h.run('events', 'list', '--type', 'signin-failed');
    const [heading, row] = stdout.split('\n');
    expect(heading).toMatch(/^TIME\s+TYPE\s+MEMBER\s+ACTOR\s+VIA\s+CLIENT\s+OUTCOME\s+REASON$/);
    expect(row).toMatch(/Z\s+signin-failed\s+m1\s+member m1\s+-\s+198\.51\.100\.7\s+refused\s+wrong-password$/);
  });

  it('refuses a WHEN, a type or a limit it cannot read, naming the option', async () => {
    for (const [args, message] of [
      [['--since', 'yesterday'], /--since must be an ISO 8601 date or time/],
      [['--limit', '0'], /--limit must be a whole number from 1 to 10000/],
      [['--limit', 'ten'], /--limit must be a whole number from 1 to 10000/],
      [['--type', 'signin'], /--type/],
    ] as const) {
      const result = await h.run('events', 'list', ...args);
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
    }
  });
});

describe('events export', () => {
  it('writes JSON lines oldest first from WHEN on', async () => {
    await aFailedAndASucceededSignIn();
    const result = await h.run('events', 'export', '--since', '2000-01-01');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as Printed);
    expect(lines.map((event) => event.type)).toEqual(['member-created', 'signin-failed', 'signin-succeeded']);
    expect(lines[1]).toMatchObject({ memberId: 'm1', reason: 'wrong-password', actor: { kind: 'member', id: 'm1' } });
    expect((await h.run('events', 'export', '--since', '2999-01-01')).stdout).toBe('');
  });

  it('with --json prints one document, streamed, with the count', async () => {
    await aFailedAndASucceededSignIn();
    const result = await h.run('events', 'export', '--since', '1h', '--json');
    const document = JSON.parse(result.stdout) as { events: Printed[]; count: number };
    expect(document.events.map((event) => event.type)).toEqual(['member-created', 'signin-failed', 'signin-succeeded']);
    expect(document.count).toBe(3);
  });

  it('requires --since', async () => {
    const result = await h.run('events', 'export');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--since/);
  });
});
