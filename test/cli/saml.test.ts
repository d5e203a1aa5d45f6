import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SAML_ATTRIBUTES } from '../../src/service/saml/index.js';
import { cliHarness } from '../helpers/cli-harness.js';
import { spMetadata } from '../helpers/sp-metadata.js';

const PUBLIC_URL = 'https://members.example.org';

let h: Awaited<ReturnType<typeof cliHarness>>;
let dir: string;
let file: string;

beforeEach(async () => {
  h = await cliHarness({ PUBLIC_URL });
  dir = await mkdtemp(join(tmpdir(), 'saml-cli-'));
  file = join(dir, 'events.xml');
  await writeFile(file, spMetadata('https://events.example.org/sp', { signed: true }));
});
afterEach(async () => {
  await h.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe('saml-sps add', () => {
  it('registers the SP of a metadata file with the default settings, which follow its metadata, and prints its name and entity ID', async () => {
    const result = await h.run('saml-sps', 'add', 'events', '--metadata', file, '--json');
    expect(result).toEqual({ code: 0, stdout: expect.any(String), stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({ name: 'events', entityId: 'https://events.example.org/sp' });
    const sp = await h.services.saml.sps.find('events');
    expect(sp?.settings).toEqual({ nameIdFormat: 'persistent', attributes: DEFAULT_SAML_ATTRIBUTES, signResponse: true, signAssertion: true, requireSignedRequests: true, encryptAssertion: true });
    expect(sp?.metadataXml).toBe(spMetadata('https://events.example.org/sp', { signed: true }));
    expect(await h.services.saml.sps.any()).toBe(true);
  });

  it("takes the NameID format, the site's own attribute names, what to sign, signed requests and no encryption", async () => {
    await writeFile(file, spMetadata('https://events.example.org/sp'));
    const result = await h.run(
      'saml-sps', 'add', 'cvent', '--metadata', file,
      '--name-id-format', 'emailAddress',
      '--attribute', 'first_name=firstName', '--attribute', 'last_name=lastName', '--attribute', 'email_address=email', '--attribute', 'urn:oid:1.3.6.1.4.1.5923.1.1.1.1=roles',
      '--sign', 'assertion', '--require-signed-requests', '--no-encrypt',
    );
    expect(result).toEqual({ code: 0, stdout: 'name       cvent\nentity id  https://events.example.org/sp\n', stderr: '' });
    expect((await h.services.saml.sps.find('cvent'))?.settings).toEqual({
      nameIdFormat: 'emailAddress',
      attributes: [
        { name: 'first_name', nameFormat: 'basic', field: 'firstName' },
        { name: 'last_name', nameFormat: 'basic', field: 'lastName' },
        { name: 'email_address', nameFormat: 'basic', field: 'email' },
        { name: 'urn:oid:1.3.6.1.4.1.5923.1.1.1.1', nameFormat: 'uri', field: 'roles' },
      ],
      signResponse: false,
      signAssertion: true,
      requireSignedRequests: true,
      encryptAssertion: false,
    });
  });

  it('fetches the metadata from a URL', async () => {
    const server: Server = createServer((_, res) => res.end(spMetadata('https://forum.example.org/sp')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/Shibboleth.sso/Metadata`;
      const result = await h.run('saml-sps', 'add', 'forum', '--metadata', url, '--json');
      expect(JSON.parse(result.stdout)).toEqual({ name: 'forum', entityId: 'https://forum.example.org/sp' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('warns, on stderr and in the JSON document, that assertions go unencrypted and that the identity provider is off without PUBLIC_URL', async () => {
    const unset = await cliHarness({});
    try {
      await writeFile(file, spMetadata('https://events.example.org/sp', { encryption: false }));
      const result = await unset.run('saml-sps', 'add', 'events', '--metadata', file, '--json');
      const warnings = [
        'the metadata has no encryption certificate: assertions are sent signed, not encrypted',
        'PUBLIC_URL is not set: the SAML identity provider is off until it is (its entity ID is PUBLIC_URL/saml/metadata)',
      ];
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ name: 'events', entityId: 'https://events.example.org/sp', warnings });
      expect(result.stderr).toBe(warnings.map((warning) => `warning: ${warning}\n`).join(''));
    } finally {
      await unset.cleanup();
    }
  });

  it('refuses metadata it cannot use, a file it cannot read, a bad --attribute or choice, and an SP registered already', async () => {
    await writeFile(join(dir, 'dtd.xml'), `<!DOCTYPE x>${spMetadata('https://x.example.org/')}`);
    expect(await h.run('saml-sps', 'add', 'x', '--metadata', join(dir, 'dtd.xml'))).toEqual({ code: 1, stdout: '', stderr: `error: --metadata ${join(dir, 'dtd.xml')}: the metadata is refused: a DTD\n` });
    expect(await h.run('saml-sps', 'add', 'x', '--metadata', join(dir, 'none.xml'))).toEqual({ code: 1, stdout: '', stderr: `error: --metadata ${join(dir, 'none.xml')}: cannot read the file (ENOENT)\n` });
    expect(await h.run('saml-sps', 'add', 'x', '--metadata', 'http://events.example.org/metadata')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: --metadata http://events.example.org/metadata: the metadata URL must be https (http only on a loopback host)\n',
    });
    expect(await h.run('saml-sps', 'add', 'x', '--metadata', file, '--attribute', 'mail=phone')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --attribute mail=phone must be NAME=FIELD, FIELD one of id, username, email, firstName, lastName, displayName, isMember, roles\n',
    });
    expect(await h.run('saml-sps', 'add', 'x', '--metadata', file, '--sign', 'nothing')).toMatchObject({ code: 2, stderr: expect.stringContaining("argument 'nothing' is invalid") });
    expect((await h.run('saml-sps', 'add', 'events', '--metadata', file)).code).toBe(0);
    expect(await h.run('saml-sps', 'add', 'again', '--metadata', file)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: A SAML service provider with this name or entity id already exists: again (https://events.example.org/sp)\n',
    });
    expect((await h.services.saml.sps.list()).map((sp) => sp.name)).toEqual(['events']);
  });
});

describe('saml-sps list, show and remove', () => {
  it('lists and shows the SPs, with their attributes and the endpoints of their metadata', async () => {
    await h.run('saml-sps', 'add', 'events', '--metadata', file, '--attribute', 'email_address=email');
    expect(JSON.parse((await h.run('saml-sps', 'list', '--json')).stdout)).toEqual([
      { name: 'events', entityId: 'https://events.example.org/sp', nameIdFormat: 'persistent', signed: 'both', encryptAssertion: true, requireSignedRequests: true, created: expect.any(String) },
    ]);
    expect(JSON.parse((await h.run('saml-sps', 'show', 'events', '--json')).stdout)).toMatchObject({
      name: 'events',
      attributes: [{ name: 'email_address', nameFormat: 'basic', field: 'email' }],
      assertionConsumerServices: ['https://events.example.org/acs'],
      singleLogoutServices: ['https://events.example.org/slo/soap'],
    });
    const text = (await h.run('saml-sps', 'show', 'events')).stdout;
    expect(text).toMatch(/^attributes\s+email_address=email$/m);
    expect(text).toMatch(/^assertion consumer services\s+https:\/\/events\.example\.org\/acs$/m);
  });

  it('removes an SP: the identity provider is off once none is left; a name no SP has exits 3', async () => {
    await h.run('saml-sps', 'add', 'events', '--metadata', file);
    expect(JSON.parse((await h.run('saml-sps', 'remove', 'events', '--json')).stdout)).toEqual({ name: 'events', removed: true });
    expect(await h.services.saml.sps.any()).toBe(false);
    expect(await h.run('saml-sps', 'remove', 'events')).toEqual({ code: 3, stdout: '', stderr: 'error: No SAML service provider has this name: events\n' });
  });
});

describe('saml-keys', () => {
  it('publishes a next key beside the current one, activates it, and lists both with their fingerprints', async () => {
    expect((await h.run('saml-keys', 'list')).stdout).toMatch(/^No signing keys yet/);
    const next = JSON.parse((await h.run('saml-keys', 'rotate', '--json')).stdout) as { kid: string; state: string; sha256Fingerprint: string };
    expect(next).toMatchObject({ state: 'next', activated: null, sha256Fingerprint: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/) });
    expect((await h.services.saml.keys.published()).map((key) => key.state)).toEqual(['current', 'next']);
    expect(await h.run('saml-keys', 'rotate')).toEqual({ code: 1, stdout: '', stderr: 'error: A next SAML signing key is published already: activate it first\n' });

    const activated = JSON.parse((await h.run('saml-keys', 'activate', '--json')).stdout) as { kid: string; state: string };
    expect(activated).toMatchObject({ kid: next.kid, state: 'current' });
    expect((await h.services.saml.keys.signing()).kid).toBe(next.kid);
    const keys = JSON.parse((await h.run('saml-keys', 'list', '--json')).stdout) as Array<{ kid: string; state: string }>;
    expect(keys.map((key) => key.state)).toEqual(['current', 'retired']);
    expect(await h.run('saml-keys', 'activate')).toEqual({ code: 1, stdout: '', stderr: 'error: No next SAML signing key is published: rotate first\n' });
  });
});
