import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { createProgram } from '../../src/cli/program.js';
import { ExitCode } from '../../src/cli/handle-error.js';
import { loadConfig } from '../../src/config/config.js';
import { totpCode } from '../helpers/authenticator-app.js';
import { cliHarness, runWith } from '../helpers/cli-harness.js';
import { openStore } from '../../src/store/open.js';
import { samlSpSettings } from '../../src/service/saml/index.js';
import type { Services } from '../../src/service/index.js';

/** An SP's metadata with one assertion consumer service and no certificate. */
function spMetadata(entityId: string): string {
  const acs = `<md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${entityId}/acs" index="0"/>`;
  return `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}"><md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${acs}</md:SPSSODescriptor></md:EntityDescriptor>`;
}

/** Every command of the program that runs something, by its words: "members mfa status". */
function leafCommands(command: Command, prefix: string[] = []): Array<{ path: string; command: Command }> {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return sub.commands.length === 0 ? [{ path: path.join(' '), command: sub }] : leafCommands(sub, path);
  });
}

const program = createProgram(
  {
    io: { out() {}, err() {} },
    config: () => {
      throw new Error('not read while listing commands');
    },
    withServices: () => Promise.reject(new Error('not opened while listing commands')),
  },
  '0.0.0',
);
/** serve runs the web service until stopped; what it prints is the JSON log, which no option changes. */
const LEAVES = leafCommands(program).filter(({ path }) => path !== 'serve');

/** What each command acts on, as the store of every case below holds it. */
interface Fixture {
  sessionId: string;
  csvFile: string;
  webConfigFile: string;
  envFile: string;
  /** The metadata of an SP not yet registered. */
  metadataFile: string;
  /** Where the store commands copy and back up the configured store (DATA_DIR), files not yet there. */
  copyFile: string;
  backupFile: string;
}

/** A command line that succeeds on the fixture, for each command. */
const SUCCEEDS: Record<string, (f: Fixture) => string[]> = {
  'callers add': () => ['callers', 'add', 'new-caller'],
  'callers list': () => ['callers', 'list'],
  'callers rotate': () => ['callers', 'rotate', 'p'],
  'callers add-origin': () => ['callers', 'add-origin', 'p', 'https://www.example.org'],
  'callers remove-origin': () => ['callers', 'remove-origin', 'p', 'https://portal.example.org'],
  'callers retire-old': () => ['callers', 'retire-old', 'p'],
  'callers disable': () => ['callers', 'disable', 'p'],
  'callers enable': () => ['callers', 'enable', 'p'],
  'callers remove': () => ['callers', 'remove', 'p'],
  'members add': () => ['members', 'add', '--id', 'm2', '--username', 'bob'],
  'members update': () => ['members', 'update', 'm1', '--last-name', 'King'],
  'members list': () => ['members', 'list'],
  'members show': () => ['members', 'show', 'm1'],
  'members set-password': () => ['members', 'set-password', 'm1', '--password', 'correct horse'],
  'members mfa status': () => ['members', 'mfa', 'status', 'm1'],
  'members mfa reset': () => ['members', 'mfa', 'reset', 'm1'],
  'members recovery-link': () => ['members', 'recovery-link', 'm1'],
  'members import': (f) => ['members', 'import', f.csvFile],
  'members disable': () => ['members', 'disable', 'm1'],
  'members enable': () => ['members', 'enable', 'm1'],
  'members remove': () => ['members', 'remove', 'm1'],
  'sessions create': () => ['sessions', 'create', 'm1', '--domain', 'example.com'],
  'sessions list': () => ['sessions', 'list'],
  'sessions revoke': (f) => ['sessions', 'revoke', f.sessionId],
  'sessions revoke-all': () => ['sessions', 'revoke-all', 'm1'],
  'events list': () => ['events', 'list'],
  'events export': () => ['events', 'export', '--since', '1d'],
  'provisioners add': () => ['provisioners', 'add', 'okta'],
  'provisioners list': () => ['provisioners', 'list'],
  'provisioners rotate': () => ['provisioners', 'rotate', 'entra'],
  'provisioners remove': () => ['provisioners', 'remove', 'entra'],
  'oidc-clients add': () => ['oidc-clients', 'add', 'forum', '--redirect-uri', 'https://forum.example.org/callback'],
  'oidc-clients list': () => ['oidc-clients', 'list'],
  'oidc-clients show': () => ['oidc-clients', 'show', 'portal'],
  'oidc-clients rotate': () => ['oidc-clients', 'rotate', 'portal'],
  'oidc-clients remove': () => ['oidc-clients', 'remove', 'portal'],
  'oidc-keys list': () => ['oidc-keys', 'list'],
  'oidc-keys rotate': () => ['oidc-keys', 'rotate'],
  'saml-sps add': (f) => ['saml-sps', 'add', 'forum', '--metadata', f.metadataFile],
  'saml-sps list': () => ['saml-sps', 'list'],
  'saml-sps show': () => ['saml-sps', 'show', 'events'],
  'saml-sps remove': () => ['saml-sps', 'remove', 'events'],
  'saml-keys list': () => ['saml-keys', 'list'],
  'saml-keys rotate': () => ['saml-keys', 'rotate'],
  'saml-keys activate': () => ['saml-keys', 'activate'],
  'staff grant': () => ['staff', 'grant', 'm1', '--role', 'support'],
  'staff list': () => ['staff', 'list'],
  'staff revoke': () => ['staff', 'revoke', 'm1'],
  'store copy': (f) => ['store', 'copy', '--to', `file:${f.copyFile}`],
  'store backup': (f) => ['store', 'backup', f.backupFile],
  'store check': () => ['store', 'check'],
  'config show': () => ['config', 'show'],
  'config from-web-config': (f) => ['config', 'from-web-config', f.webConfigFile, '--out', f.envFile],
};

/** For each command that acts on a record: a command line naming one that is not there, and the error it gives. */
const NOT_FOUND: Record<string, [string[], string]> = {
  'callers rotate': [['callers', 'rotate', 'ghost'], 'No caller has this name: ghost'],
  'callers add-origin': [['callers', 'add-origin', 'ghost', 'https://www.example.org'], 'No caller has this name: ghost'],
  'callers remove-origin': [['callers', 'remove-origin', 'p', 'https://www.example.org'], 'The caller has not registered this origin: https://www.example.org'],
  'callers retire-old': [['callers', 'retire-old', 'ghost'], 'No caller has this name: ghost'],
  'callers disable': [['callers', 'disable', 'ghost'], 'No caller has this name: ghost'],
  'callers enable': [['callers', 'enable', 'ghost'], 'No caller has this name: ghost'],
  'callers remove': [['callers', 'remove', 'ghost'], 'No caller has this name: ghost'],
  'members update': [['members', 'update', 'ghost', '--last-name', 'King'], 'No member has this id: ghost'],
  'members show': [['members', 'show', 'ghost'], 'No member has this id: ghost'],
  'members set-password': [['members', 'set-password', 'ghost', '--password', 'correct horse'], 'No member has this id: ghost'],
  'members mfa status': [['members', 'mfa', 'status', 'ghost'], 'No member has this id: ghost'],
  'members mfa reset': [['members', 'mfa', 'reset', 'ghost'], 'No member has this id: ghost'],
  'members recovery-link': [['members', 'recovery-link', 'ghost'], 'No member has this id: ghost'],
  'members disable': [['members', 'disable', 'ghost'], 'No member has this id: ghost'],
  'members enable': [['members', 'enable', 'ghost'], 'No member has this id: ghost'],
  'members remove': [['members', 'remove', 'ghost'], 'No member has this id: ghost'],
  'sessions create': [['sessions', 'create', 'ghost', '--domain', 'example.com'], 'No member has this id: ghost'],
  'sessions revoke': [['sessions', 'revoke', 'no-such-session'], 'No live session has this id: no-such-session'],
  'sessions revoke-all': [['sessions', 'revoke-all', 'ghost'], 'No member has this id: ghost'],
  'provisioners rotate': [['provisioners', 'rotate', 'ghost'], 'No provisioning client has this name: ghost'],
  'provisioners remove': [['provisioners', 'remove', 'ghost'], 'No provisioning client has this name: ghost'],
  'oidc-clients show': [['oidc-clients', 'show', 'ghost'], 'No OpenID client has this name: ghost'],
  'oidc-clients rotate': [['oidc-clients', 'rotate', 'ghost'], 'No OpenID client has this name: ghost'],
  'oidc-clients remove': [['oidc-clients', 'remove', 'ghost'], 'No OpenID client has this name: ghost'],
  'saml-sps show': [['saml-sps', 'show', 'ghost'], 'No SAML service provider has this name: ghost'],
  'saml-sps remove': [['saml-sps', 'remove', 'ghost'], 'No SAML service provider has this name: ghost'],
  'staff grant': [['staff', 'grant', 'ghost', '--role', 'admin'], 'No member has this id: ghost'],
  'staff revoke': [['staff', 'revoke', 'ghost'], 'This member is not staff: ghost'],
};

/** The commands that create what they name, or name a file: no record of theirs can be missing. */
const NAMES_NO_EXISTING_RECORD = ['callers add', 'provisioners add', 'oidc-clients add', 'saml-sps add', 'members import', 'config from-web-config', 'store backup', 'store check'];

/** What a case needs beyond the fixture: a next SAML key to activate (the fixture has none, so that rotate succeeds). */
const PREPARE: Record<string, (services: Services) => Promise<unknown>> = {
  'saml-keys activate': (s) => s.saml.keys.rotate(),
  'staff revoke': (s) => s.staff.grant('m1', 'support'),
};

describe('every command', () => {
  it('is listed here, so that a new one gets its cases', () => {
    expect(LEAVES.map(({ path }) => path).sort()).toEqual(Object.keys(SUCCEEDS).sort());
  });

  it.each(LEAVES.map(({ path, command }) => [path, command] as const))('"%s" takes --json', (_path, command) => {
    expect(command.options.map((option) => option.long)).toContain('--json');
  });

  it('that acts on a record has a case for the record being missing', () => {
    const taking = LEAVES.filter(({ path, command }) => command.registeredArguments.length > 0 && !NAMES_NO_EXISTING_RECORD.includes(path));
    expect(taking.map(({ path }) => path).sort()).toEqual(Object.keys(NOT_FOUND).sort());
  });
});

describe('every command, run on a store', () => {
  let h: Awaited<ReturnType<typeof cliHarness>>;
  let dir: string;
  let fixture: Fixture;

  beforeEach(async () => {
    h = await cliHarness();
    dir = await mkdtemp(join(tmpdir(), 'every-command-'));
    await h.services.callers.add('p', 'first-password');
    await h.services.callers.rotate('p', { password: 'second-password' });
    await h.services.callers.addOrigin('p', 'https://portal.example.org');
    await h.services.members.add({ id: 'm1', username: 'ada' });
    await h.services.provisioners.add('entra');
    await h.services.oidc.clients.add('portal', { redirectUris: ['https://portal.example.org/callback'] });
    await h.services.saml.sps.add({ name: 'events', entityId: 'https://events.example.org/sp', metadataXml: spMetadata('https://events.example.org/sp'), settings: samlSpSettings({ authnRequestsSigned: false, encryptionCertificate: false }) });
    const { secret } = await h.services.secondFactor.beginSetup('m1', 'ada@example.org');
    await h.services.secondFactor.confirmSetup('m1', totpCode(secret, Date.now()));
    const { session } = await h.services.sessions.create('m1', 'example.com');
    const csvFile = join(dir, 'members.csv');
    await writeFile(csvFile, 'id,username,email,first_name,last_name\nm3,carol,,,\n');
    const webConfigFile = join(dir, 'web.config');
    const key = `validationKey="${'9A'.repeat(64)}" decryptionKey="${'4C'.repeat(32)}"`;
    await writeFile(webConfigFile, `<configuration><system.web><machineKey ${key}/><authentication mode="Forms"/></system.web></configuration>`);
    const metadataFile = join(dir, 'forum.xml');
    await writeFile(metadataFile, spMetadata('https://forum.example.org/sp'));
    // The store commands work on the configured store's database, not on the services: one in DATA_DIR.
    await (await openStore({ dataDir: join(dir, 'data') })).close();
    fixture = { sessionId: session.id, csvFile, webConfigFile, envFile: join(dir, 'imis.env'), metadataFile, copyFile: join(dir, 'copy.sqlite'), backupFile: join(dir, 'backup.sqlite') };
  });
  afterEach(async () => {
    await h.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  /** The CLI over the harness's store, with the settings of an environment that sets PUBLIC_URL (for config show and recovery links) and DATA_DIR (for the store commands). */
  const run = (...args: string[]) =>
    runWith({ config: () => loadConfig({ PUBLIC_URL: 'https://members.example.org', DATA_DIR: join(dir, 'data') }), withServices: (fn) => fn(h.services) }, ...args);

  it.each(Object.entries(SUCCEEDS))('"%s --json" prints exactly one JSON document on stdout, as printJson prints it', async (path, args) => {
    await PREPARE[path]?.(h.services);
    const result = await run(...args(fixture), '--json');
    expect(result.code).toBe(ExitCode.ok);
    const document: unknown = JSON.parse(result.stdout);
    expect(result.stdout).toBe(`${JSON.stringify(document, null, 2)}\n`);
    expect(result.stderr).not.toMatch(/^error/m);
  });

  it.each(Object.entries(NOT_FOUND))('"%s" on a missing record exits 3 through the shared handler, with or without --json', async (_path, [args, message]) => {
    for (const extra of [[], ['--json']]) {
      expect(await run(...args, ...extra)).toEqual({ code: ExitCode.notFound, stdout: '', stderr: `error: ${message}\n` });
    }
  });
});
