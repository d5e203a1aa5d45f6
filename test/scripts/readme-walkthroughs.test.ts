/**
 * The README's walkthroughs, run as a newcomer runs them: each shell block exactly as the README has it, in bash,
 * in one folder, against the built service started as the README says (its `… npm start` line's settings), with
 * `npx authentication-asmx` being the built CLI. Each works in any order after the others; run twice, the second
 * run stops cleanly at its first failing step (no stack trace, no command run with an empty value).
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLI_PATH, startService } from '../helpers/processes.js';
import { describeRequiring, program } from '../helpers/requirements.js';

interface Walkthrough {
  name: string;
  /** The settings of the section's `… npm start` line, such as DATA_DIR and PROFILE. */
  startEnv: Record<string, string>;
  /** The section's shell block, as the README has it. */
  script: string;
  /** What its output shows when it worked. */
  says: RegExp[];
}

const README = await readFile(new URL('../../README.md', import.meta.url), 'utf8');

/** The section under `heading`: its `VAR=value … npm start` line and its first sh block. */
function walkthrough(name: string, heading: string, says: RegExp[]): Walkthrough {
  const start = README.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`README.md has no heading ${heading}`);
  const section = README.slice(start + heading.length);
  const script = /\n```sh\n([^]*?)\n```/.exec(section)?.[1];
  const before = section.slice(0, section.indexOf('```sh'));
  const startLine = /`((?:[A-Z_]+=\S+ )*)npm start`/.exec(before)?.[1];
  if (script === undefined || startLine === undefined) throw new Error(`README.md's ${heading} has no \`… npm start\` or no sh block`);
  const startEnv = Object.fromEntries(startLine.trim().split(/\s+/).filter(Boolean).map((pair) => pair.split('=') as [string, string]));
  return { name, startEnv, script, says };
}

const WALKTHROUGHS = {
  fiveMinutes: walkthrough('five minutes', '## Five minutes: from an empty store to a signed-in member', [
    /&lt;User ID="10042" TOKEN="[^"]+" EMAIL="ada@example.org" FIRSTNAME="Ada"/,
    /<AuthenticateTokenResult>&lt;\?xml version="1.0" encoding="UTF-16"\?&gt;&lt;iBridge&gt;&lt;User ID="10042"/,
  ]),
  isgweb: walkthrough('ISGweb', '### ISGweb (iBridge for iMIS): a WordPress or Drupal plugin\'s login form', [
    /&lt;User ID="10042" TOKEN="([^"]+)" EMAIL="ada@example.org"[^\n]*USER_COOKIE="\.ASPXAUTH=[^"|]+\|Token=\1"/,
  ]),
  crm4m: walkthrough('CRM4M', '### CRM4M (Protech): a .NET or Spring portal', [
    /\{"status":"Success","message":"","contactid":"[0-9a-f-]{36}","pa_webloginname":"ada"[^\n]*"pa_member":true,"pa_token":"[0-9a-f-]{36}"/,
  ]),
};

/** Three services started and some fifteen CLI commands, on a loaded machine. */
const TIMEOUT_MS = 180_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describeRequiring([program('curl', '/usr/bin/curl', 'apt-get install curl'), program('bash', '/usr/bin/bash', 'apt-get install bash')], "the README's walkthroughs", () => {
  let folder: string;
  let bin: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'asmx-readme-'));
    bin = await mkdtemp(join(tmpdir(), 'asmx-readme-bin-'));
    // `npx authentication-asmx …` is the package's command, the built CLI.
    const npx = join(bin, 'npx');
    await writeFile(npx, `#!/bin/sh\n[ "$1" = authentication-asmx ] || exit 127\nshift\nexec "${process.execPath}" "${CLI_PATH}" "$@"\n`);
    await chmod(npx, 0o755);
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
    await rm(bin, { recursive: true, force: true });
  });

  /** Starts the service as the walkthrough says, in the folder, runs its block in bash in a second "terminal", and stops it. */
  async function run({ name, startEnv, script }: Walkthrough): Promise<Run> {
    const dataDir = resolve(folder, startEnv.DATA_DIR ?? 'data');
    const service = await startService(name, { ...startEnv, DATA_DIR: dataDir, COOKIE_DOMAIN: '.example.org' });
    try {
      return await new Promise<Run>((done) => {
        const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: folder, PORT: String(service.port) };
        execFile('/usr/bin/bash', ['-c', script], { cwd: folder, env, timeout: 60_000 }, (error, stdout, stderr) => {
          done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
        });
      });
    } finally {
      await service.stop();
    }
  }

  async function expectWorks(walkthrough: Walkthrough): Promise<void> {
    const result = await run(walkthrough);
    // The CLI's notices ("this password is shown only once") go to stderr; nothing else may.
    const others = result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('warning: '));
    expect({ name: walkthrough.name, code: result.code, stderr: others }).toEqual({ name: walkthrough.name, code: 0, stderr: [] });
    for (const pattern of walkthrough.says) expect(result.stdout).toMatch(pattern);
  }

  it('each has a store of its own, and the CLI uses it as the service does', () => {
    const dirs = Object.values(WALKTHROUGHS).map(({ startEnv, script }) => {
      expect(script).toContain(`export DATA_DIR=${startEnv.DATA_DIR}`);
      if (startEnv.PROFILE) expect(script).toContain(`PROFILE=${startEnv.PROFILE}`);
      return startEnv.DATA_DIR;
    });
    expect(new Set(dirs).size).toBe(dirs.length);
  });

  it.each([
    ['five minutes, ISGweb, CRM4M', [WALKTHROUGHS.fiveMinutes, WALKTHROUGHS.isgweb, WALKTHROUGHS.crm4m]],
    ['CRM4M, ISGweb, five minutes', [WALKTHROUGHS.crm4m, WALKTHROUGHS.isgweb, WALKTHROUGHS.fiveMinutes]],
  ])('each works after the others in one folder: %s', async (_order, walkthroughs) => {
    for (const walkthrough of walkthroughs) await expectWorks(walkthrough);
  }, TIMEOUT_MS);

  it('run again in the same folder, CRM4M stops at its first failing step: one line each, no stack trace, no step with an empty value', async () => {
    await expectWorks(WALKTHROUGHS.crm4m);
    const again = await run(WALKTHROUGHS.crm4m);
    expect(again.code).not.toBe(0);
    const lines = again.stderr.trim().split('\n');
    // The caller and the member exist already: each refusal in one line, then the helper's own line.
    expect(lines).toEqual([
      'error: A caller with this name already exists: portal',
      'field: no password to read: the command before failed',
      expect.stringMatching(/^error: .*ada/),
      'field: no id to read: the command before failed',
      expect.stringMatching(/ID: parameter null or not set$/),
    ]);
    // Nothing ran with the empty id or password: no set-password, no SOAP call.
    expect(again.stdout).toBe('');
  }, TIMEOUT_MS);
});
