/**
 * `members recovery-link`: a one-time link at PUBLIC_URL for support to hand over; it works on the new-password
 * page's terms (once, voiding earlier links), and is refused without PUBLIC_URL, for a disabled member, and for
 * one that does not exist.
 */
import { loadConfig, type Environment } from '../../src/config/config.js';
import { ExitCode } from '../../src/cli/handle-error.js';
import type { Services } from '../../src/service/index.js';
import { tempServices } from '../helpers/test-services.js';
import { runWith } from '../helpers/cli-harness.js';

let services: Services;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ services, cleanup } = await tempServices());
  await services.members.add({ id: 'm1', username: 'ada', email: 'ada@example.org' });
});
afterEach(() => cleanup());

const run = (env: Environment, ...args: string[]) => runWith({ config: () => loadConfig(env), withServices: (fn) => fn(services) }, ...args);
const PUBLIC = { PUBLIC_URL: 'https://members.example.org/auth' };
const tokenOf = (link: string) => new URL(link).searchParams.get('token') ?? '';

it('prints a link to the new-password page at PUBLIC_URL\'s origin that works once, for RECOVERY_TOKEN_TTL', async () => {
  const before = Date.now();
  const result = await run(PUBLIC, 'members', 'recovery-link', 'm1', '--json');
  const after = Date.now();
  expect(result.code).toBe(ExitCode.ok);
  const { link, expiresAt } = JSON.parse(result.stdout) as { link: string; expiresAt: string };
  expect(link).toMatch(/^https:\/\/members\.example\.org\/Login\/reset\?token=[A-Za-z0-9_-]{43}$/);
  // The services' RECOVERY_TOKEN_TTL, the default 30 minutes, from the moment the command issued it.
  const issuedAt = Date.parse(expiresAt) - 30 * 60_000;
  expect({ issuedAt, during: before <= issuedAt && issuedAt <= after }).toEqual({ issuedAt, during: true });
  expect(await services.recovery.check(tokenOf(link))).toBe(true);
  expect(await services.recovery.redeem(tokenOf(link), 'a brand new passphrase', {})).toMatchObject({ ok: true });
  expect(await services.recovery.check(tokenOf(link))).toBe(false);
});

it('voids the member\'s earlier link; prints the link and its expiry as text without --json', async () => {
  const first = JSON.parse((await run(PUBLIC, 'members', 'recovery-link', 'm1', '--json')).stdout) as { link: string };
  const second = await run(PUBLIC, 'members', 'recovery-link', 'm1');
  expect(second.code).toBe(ExitCode.ok);
  const [link = '', note = ''] = second.stdout.split('\n');
  expect(note).toMatch(/^The link works once, until \d{4}-\d\d-\d\dT[\d:.]+Z\. Give it to the member only\.$/);
  expect(await services.recovery.check(tokenOf(first.link))).toBe(false);
  expect(await services.recovery.check(tokenOf(link))).toBe(true);
});

it('needs PUBLIC_URL, refuses a disabled member, and exits as not found for an unknown one', async () => {
  expect(await run({}, 'members', 'recovery-link', 'm1')).toEqual({
    code: ExitCode.usage,
    stdout: '',
    stderr: 'Invalid configuration:\n  - PUBLIC_URL: must be set for a recovery link (the address members open it at)\n',
  });
  await services.members.setEnabled('m1', false);
  expect(await run(PUBLIC, 'members', 'recovery-link', 'm1')).toEqual({
    code: ExitCode.failure,
    stdout: '',
    stderr: 'error: The member is disabled: m1 (enable it first, or its link would not work)\n',
  });
  expect(await run(PUBLIC, 'members', 'recovery-link', 'ghost')).toEqual({ code: ExitCode.notFound, stdout: '', stderr: 'error: No member has this id: ghost\n' });
});
