/**
 * LOG_FORMAT=auto as an operator meets it: the built service (`node dist/cli/index.js serve`) started in a
 * terminal writes readable lines, coloured unless NO_COLOR is set, and a short summary of its settings; started
 * with its stdout on a pipe (systemd, a container, a log shipper) it writes JSON lines, the whole settings record
 * among them. The terminal is a pseudo-terminal from util-linux's `script`; each run is stopped with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_PATH, killLeftovers, request, startService, type Exit } from './helpers/processes.js';
import { describeRequiring, program } from './helpers/requirements.js';
import { waitUntil } from './helpers/wait.js';

const SCRIPT_PATH = '/usr/bin/script';
const SCRIPT = program("util-linux's script", SCRIPT_PATH, 'apt-get install bsdutils');

const COLOURS = /\u001b\[\d+m/g;
const PRETTY_LINE = /^\d\d:\d\d:\d\d\.\d{3}Z (ERROR|WARN |INFO |DEBUG) \S/;

/** The `script` processes started here, ended in afterEach whatever a test left running. */
const running = new Set<ChildProcess>();

const shellQuoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

interface TerminalRun {
  /** What the terminal showed so far, its lines without their "\r\n". */
  lines(): string[];
  /** Sends SIGTERM to the service (not to `script`, which would end the session) and waits for both to exit. */
  stop(): Promise<Exit>;
  readonly script: ChildProcess;
}

/**
 * `script -qefc "exec node dist/cli/index.js serve" /dev/null`: the service runs on the pseudo-terminal that
 * `script` opens (stdin, stdout and stderr), and `script` copies what it shows to its own stdout, a pipe here.
 * Resolves once the service logged that it listens.
 */
async function startOnTerminal(env: Record<string, string>): Promise<TerminalRun> {
  const command = `exec ${shellQuoted(process.execPath)} ${shellQuoted(CLI_PATH)} serve`;
  const script = spawn(SCRIPT_PATH, ['-qefc', command, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(script);
  let shown = '';
  script.stdout!.setEncoding('utf8').on('data', (chunk: string) => (shown += chunk));
  script.stderr!.setEncoding('utf8').on('data', (chunk: string) => (shown += chunk));
  const exited = new Promise<Exit>((resolve) => script.once('exit', (code, signal) => resolve({ code, signal })));
  let exit: Exit | undefined;
  void exited.then((value) => (exit = value));
  const lines = () => shown.split(/\r?\n/).filter((line) => line !== '');
  await waitUntil(
    () => {
      if (exit) throw new Error(`script exited (${exit.code ?? exit.signal}) before the service listened: ${shown}`);
      return lines().some((line) => line.replace(COLOURS, '').includes(' listening '));
    },
    'the listening line on the terminal',
    { timeoutMs: 20_000 },
  );
  // With `exec`, the shell that script started became the service: script's only child.
  const service = Number(readFileSync(`/proc/${script.pid}/task/${script.pid}/children`, 'utf8').trim());
  return {
    lines,
    script,
    async stop() {
      process.kill(service, 'SIGTERM');
      return exited;
    },
  };
}

describeRequiring([SCRIPT], 'the service on a terminal and on a pipe', () => {
  let dataDir: string;

  beforeAll(() => {
    if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run npm run build first (npm test does)`);
  });
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'asmx-terminal-'));
  });
  afterEach(async () => {
    // What a failed test left running: the service dies with its terminal.
    for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    running.clear();
    killLeftovers();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('on a terminal: readable, coloured lines, a short summary of the settings, the calls, the stop', async () => {
    const key = 'e'.repeat(64);
    const run = await startOnTerminal({ DATA_DIR: dataDir, SECRET_KEY: key, ORGANIZATION_NAME: 'Example Members' });
    const listening = run.lines().map((line) => line.replace(COLOURS, '')).find((line) => line.includes(' listening ')) ?? '';
    const url = /url=(\S+)/.exec(listening)?.[1] ?? '';
    const port = new URL(url).port;
    expect(listening).toMatch(
      new RegExp(
        `^\\S+ INFO  listening url=http://127\\.0\\.0\\.1:${port}/Authentication\\.asmx store=sqlite resultFormat=ibridge operations=AuthenticateCookie,AuthenticateToken metrics=http://127\\.0\\.0\\.1:${port}/metrics$`,
      ),
    );
    expect((await request(`http://127.0.0.1:${port}/Authentication.asmx/AuthenticateToken?securityPassword=wrong&token=x`)).status).toBe(500);
    await waitUntil(() => run.lines().some((line) => line.replace(COLOURS, '').includes(' call ')), 'the call line on the terminal');
    expect(await run.stop()).toEqual({ code: 0, signal: null });

    const lines = run.lines();
    const plain = lines.map((line) => line.replace(COLOURS, ''));
    for (const line of plain) expect(line).toMatch(PRETTY_LINE);
    for (const line of lines) expect(() => JSON.parse(line.replace(COLOURS, ''))).toThrow();
    // Coloured: the time dim, the level green.
    expect(lines[0]).toMatch(/^\u001b\[2m\d\d:\d\d:\d\d\.\d{3}Z\u001b\[0m \u001b\[32mINFO \u001b\[0m /);
    expect(plain[0]?.replace(/^\S+ /, '')).toBe(
      `INFO  settings profile=none given="PORT=0, HOST=127.0.0.1, DATA_DIR=${dataDir}, LOG_LEVEL=info, ORGANIZATION_NAME=Example Members, SECRET_KEY=(hidden)"`,
    );
    expect(plain).toContainEqual(
      expect.stringMatching(
        /^\S+ INFO  call binding=httpget operation=AuthenticateToken status=500 latencyMs=[\d.]+ client=127\.0\.0\.1 requestId=[\w-]+ outcome=invalid-security-password$/,
      ),
    );
    expect(plain.at(-1)).toMatch(/^\S+ INFO  stopped$/);
    expect(lines.join('\n')).not.toContain(key);
    expect(lines.join('\n').length).toBeLessThan(4000);
  });

  test('on a terminal with NO_COLOR: readable lines without a single escape', async () => {
    const run = await startOnTerminal({ DATA_DIR: dataDir, NO_COLOR: '1' });
    expect(await run.stop()).toEqual({ code: 0, signal: null });
    const lines = run.lines();
    expect(lines.join('\n')).not.toContain('\u001b');
    for (const line of lines) expect(line).toMatch(PRETTY_LINE);
    expect(lines).toContainEqual(expect.stringMatching(/ INFO  listening url=http:\/\/127\.0\.0\.1:\d+\/Authentication\.asmx /));
  });

  test('on a pipe: JSON lines, with the whole settings record', async () => {
    const key = 'f'.repeat(64);
    const service = await startService('piped', { DATA_DIR: dataDir, SECRET_KEY: key });
    expect((await request(`${service.baseUrl}/Authentication.asmx/AuthenticateToken?securityPassword=wrong&token=x`)).status).toBe(500);
    await waitUntil(() => service.logLines.some((line) => line.message === 'call'), 'the call line on the pipe');
    expect(await service.stop()).toEqual({ code: 0, signal: null });

    // Every line on stdout parsed as JSON (startService keeps any other line, and stderr, apart).
    expect(service.otherOutput).toEqual([]);
    expect(service.logLines.map((line) => line.message)).toEqual(expect.arrayContaining(['settings', 'listening', 'call', 'stopped']));
    expect(service.logLines.find((line) => line.message === 'settings')).toMatchObject({
      profile: null,
      settings: {
        SECRET_KEY: { value: '(hidden)', source: 'environment' },
        LOG_FORMAT: { value: 'auto', source: 'default' },
        HOST: { value: '127.0.0.1', source: 'environment' },
        OPERATIONS: { value: 'AuthenticateCookie,AuthenticateToken', source: 'default' },
      },
    });
    expect(service.logLines.find((line) => line.message === 'call')).toMatchObject({
      level: 'info',
      binding: 'httpget',
      operation: 'AuthenticateToken',
      status: 500,
      outcome: 'invalid-security-password',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(JSON.stringify(service.logLines)).not.toContain(key);
  });
});
