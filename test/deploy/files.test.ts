import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseStringPromise } from 'xml2js';
import { loadConfig } from '../../src/config/config.js';
import { parseDurationSeconds } from '../../src/config/duration.js';
import { program, testRequiring } from '../helpers/requirements.js';

/**
 * The deployment files that the nginx test does not run: what can be checked without IIS or a running
 * systemd. Their settings must agree with the service's defaults.
 */

const read = (path: string) => readFileSync(new URL(`../../deploy/${path}`, import.meta.url), 'utf8');
const defaults = loadConfig({});

/** The unit's directives (not its comments), in order. */
const directives = (unit: string) =>
  unit
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

describe('deploy/systemd', () => {
  const single = read('systemd/authentication-asmx.service');
  const template = read('systemd/authentication-asmx@.service');

  test('the template unit is the single unit with the port taken from the instance name', () => {
    const normalized = directives(template).map((line) =>
      line.replace('Environment=PORT=%i', 'Environment=PORT=8080').replace('authentication-asmx on port %i (', 'authentication-asmx ('),
    );
    expect(normalized).toEqual(directives(single));
    expect(directives(template)).toContain('Environment=PORT=%i');
  });

  test('a stop can finish: TimeoutStopSec is above the default SHUTDOWN_TIMEOUT, and SIGTERM is the stop signal', () => {
    const timeout = /^TimeoutStopSec=(\S+)$/m.exec(single)?.[1];
    expect(timeout).toBeDefined();
    expect(parseDurationSeconds(timeout!)).toBeGreaterThan(defaults.shutdownTimeoutSeconds + 5);
    expect(directives(single)).toContain('KillSignal=SIGTERM');
  });

  test('hardened, without MemoryDenyWriteExecute (which V8’s JIT cannot run under)', () => {
    for (const setting of [
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'PrivateDevices=yes',
      'ProtectKernelTunables=yes',
      'ProtectKernelModules=yes',
      'ProtectKernelLogs=yes',
      'ProtectControlGroups=yes',
      'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
      'RestrictNamespaces=yes',
      'LockPersonality=yes',
      'SystemCallFilter=@system-service',
      'CapabilityBoundingSet=',
      'StateDirectory=authentication-asmx',
      'Environment=DATA_DIR=/var/lib/authentication-asmx',
      'EnvironmentFile=/etc/authentication-asmx/env',
      'ExecStart=/usr/bin/node /opt/authentication-asmx/dist/cli/index.js serve',
    ]) {
      expect(directives(single)).toContain(setting);
    }
    expect(directives(single).some((line) => line.startsWith('MemoryDenyWriteExecute='))).toBe(false);
  });

  // systemd-analyze verify checks every directive and that ExecStart's program exists; it needs no running systemd.
  const verifier = [
    program('systemd-analyze', '/usr/bin/systemd-analyze', 'apt-get install systemd'),
    program('/usr/bin/node', '/usr/bin/node', "the units' ExecStart, which systemd-analyze verify looks for"),
  ];
  testRequiring(verifier, 'systemd-analyze verify accepts both units without a warning', () => {
    const dir = new URL('../../deploy/systemd/', import.meta.url).pathname;
    const result = spawnSync('/usr/bin/systemd-analyze', ['verify', './authentication-asmx.service', './authentication-asmx@8081.service'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect({ status: result.status, output: `${result.stdout}${result.stderr}`.trim() }).toEqual({ status: 0, output: '' });
  });
});

describe('deploy/nginx', () => {
  const conf = read('nginx/authentication-asmx.conf');

  test('its body limit is the service’s MAX_BODY_BYTES', () => {
    const limit = /^\s*client_max_body_size\s+(\d+)k;/m.exec(conf)?.[1];
    expect(Number(limit) * 1024).toBe(defaults.maxBodyBytes);
  });

  test('non_idempotent retries only for the web service, never for the sign-in pages', () => {
    const retries = [...conf.matchAll(/^\s*proxy_next_upstream\s+([^;]+);/gm)].map((m) => m[1]);
    expect(retries).toEqual(['error timeout http_502 http_503 non_idempotent', 'error timeout http_502 http_503']);
    const asmx = conf.slice(conf.indexOf('location ~* ^/authentication\\.asmx'), conf.indexOf('location = /metrics'));
    expect(asmx).toContain('non_idempotent;');
  });
});

describe('deploy/iis/web.config', () => {
  type Node = { $?: Record<string, string>; [child: string]: unknown };
  let rules: Node[];
  let config: Node;

  beforeAll(async () => {
    config = ((await parseStringPromise(read('iis/web.config'))) as { configuration: Node }).configuration;
    const server = (config['system.webServer'] as Node[])[0]!;
    rules = ((server.rewrite as Node[])[0]!.rules as Node[])[0]!.rule as Node[];
  });

  const sets = (rule: Node) => (((rule.serverVariables as Node[] | undefined)?.[0]?.set as Node[] | undefined) ?? []).map((s) => s.$!);
  const conditions = (rule: Node) => (((rule.conditions as Node[] | undefined)?.[0]?.add as Node[] | undefined) ?? []).map((c) => c.$!);

  test('proxies everything else to the service on 127.0.0.1:8080 as the client sent it, with X-Forwarded-Host', () => {
    const proxy = rules.at(-1)!;
    expect((proxy.action as Node[])[0]!.$).toMatchObject({ type: 'Rewrite', url: 'http://127.0.0.1:8080{UNENCODED_URL}', appendQueryString: 'false' });
    expect(sets(proxy)).toEqual([{ name: 'HTTP_X_FORWARDED_HOST', value: '{HTTP_HOST}' }]);
  });

  test('sets X-Forwarded-Proto from {HTTPS} on every request', () => {
    const proto = rules.filter((rule) => sets(rule).some((s) => s.name === 'HTTP_X_FORWARDED_PROTO'));
    expect(proto.map((rule) => [conditions(rule)[0], sets(rule)[0]!.value])).toEqual([
      [{ input: '{HTTPS}', pattern: '^on$' }, 'https'],
      [{ input: '{HTTPS}', pattern: '^on$', negate: 'true' }, 'http'],
    ]);
  });

  test('passes the service’s error responses through, and limits bodies to MAX_BODY_BYTES', () => {
    const server = (config['system.webServer'] as Node[])[0]!;
    expect((server.httpErrors as Node[])[0]!.$).toEqual({ existingResponse: 'PassThrough' });
    const limits = ((((server.security as Node[])[0]!.requestFiltering as Node[])[0]!.requestLimits as Node[])[0]!.$)!;
    expect(Number(limits.maxAllowedContentLength)).toBe(defaults.maxBodyBytes);
  });
});

describe('deploy/container/compose.yaml', () => {
  const compose = read('container/compose.yaml');

  test('the instances listen on the nginx file’s upstream servers, on loopback in nginx’s network namespace', () => {
    const upstreams = [...read('nginx/authentication-asmx.conf').matchAll(/^\s*server 127\.0\.0\.1:(\d+) /gm)].map((m) => Number(m[1]));
    const ports = [...compose.matchAll(/^\s+PORT: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(upstreams.length).toBeGreaterThan(1);
    expect(ports).toEqual(upstreams);
    expect(compose).toMatch(/^\s+network_mode: service:nginx$/m);
    expect(compose).toMatch(/^\s+HOST: 127\.0\.0\.1$/m);
    expect(compose).toMatch(/^\s+TRUST_PROXY: 127\.0\.0\.1$/m);
  });

  test('a stop can finish: stop_grace_period is above the default SHUTDOWN_TIMEOUT', () => {
    const grace = /^\s+stop_grace_period: (\S+)$/m.exec(compose)?.[1];
    expect(grace).toBeDefined();
    expect(parseDurationSeconds(grace!)).toBeGreaterThan(defaults.shutdownTimeoutSeconds + 5);
  });
});
