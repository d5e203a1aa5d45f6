import { ExitCode } from '../../src/cli/handle-error.js';
import { cliHarness } from '../helpers/cli-harness.js';

let h: Awaited<ReturnType<typeof cliHarness>>;

beforeEach(async () => {
  h = await cliHarness();
  await h.services.members.add({ id: 'm2', username: 'grace' });
  await h.services.members.add({ id: 'm1', username: 'ada' });
});
afterEach(() => h.cleanup());

const TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

describe('staff grant, list and revoke', () => {
  it('grant gives a member a role (a second grant replaces it), list shows each by member id, revoke takes it away', async () => {
    const granted = await h.run('staff', 'grant', 'm2', '--role', 'support', '--json');
    expect(granted.code).toBe(ExitCode.ok);
    expect(JSON.parse(granted.stdout)).toEqual({ member: 'm2', role: 'support', granted: TIME });
    await h.run('staff', 'grant', 'm1', '--role', 'support');
    await h.run('staff', 'grant', 'm1', '--role', 'admin');
    await expect(h.services.staff.roleOf('m1')).resolves.toBe('admin');
    expect(JSON.parse((await h.run('staff', 'list', '--json')).stdout)).toEqual([
      { member: 'm1', username: 'ada', role: 'admin', granted: TIME },
      { member: 'm2', username: 'grace', role: 'support', granted: TIME },
    ]);
    expect((await h.run('staff', 'list')).stdout).toMatch(/^MEMBER\s+USERNAME\s+ROLE\s+GRANTED\nm1\s+ada\s+admin\s+\S+\nm2\s+grace\s+support\s+\S+\n$/);
    expect(await h.run('staff', 'revoke', 'm1', '--json')).toEqual({ code: ExitCode.ok, stdout: '{\n  "member": "m1",\n  "revoked": true\n}\n', stderr: '' });
    await expect(h.services.staff.roleOf('m1')).resolves.toBeNull();
    expect(JSON.parse((await h.run('staff', 'list', '--json')).stdout)).toEqual([{ member: 'm2', username: 'grace', role: 'support', granted: TIME }]);
    const events = (await h.services.events.list({ memberId: 'm1' })).filter((event) => event.type.startsWith('staff-'));
    expect(events.map(({ type, actor, outcome }) => ({ type, actor, outcome }))).toEqual([
      { type: 'staff-revoked', actor: { kind: 'cli' }, outcome: null },
      { type: 'staff-granted', actor: { kind: 'cli' }, outcome: 'admin' },
      { type: 'staff-granted', actor: { kind: 'cli' }, outcome: 'support' },
    ]);
  });

  it('says so when there is no staff', async () => {
    expect(await h.run('staff', 'list')).toEqual({ code: ExitCode.ok, stdout: 'No staff.\n', stderr: '' });
  });

  it('refuses a role that is not one, or none, as a usage error', async () => {
    expect(await h.run('staff', 'grant', 'm1', '--role', 'owner')).toMatchObject({ code: ExitCode.usage, stderr: expect.stringContaining("argument 'owner' is invalid") });
    expect(await h.run('staff', 'grant', 'm1')).toMatchObject({ code: ExitCode.usage, stderr: expect.stringContaining("required option '--role <role>' not specified") });
    await expect(h.services.staff.roleOf('m1')).resolves.toBeNull();
  });
});
