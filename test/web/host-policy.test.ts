import type { IncomingMessage } from 'node:http';
import { loadConfig, type Environment } from '../../src/config/config.js';
import { createHostPolicy } from '../../src/web/host-policy.js';

const request = (headers: Record<string, string>, remoteAddress = '203.0.113.9') => ({ headers, socket: { remoteAddress } }) as unknown as IncomingMessage;
const policy = (env: Environment) => createHostPolicy(loadConfig(env));

describe('ALLOWED_HOSTS', () => {
  const hosts = policy({ ALLOWED_HOSTS: 'members.example.org, *.partners.example.org, [::1]' });

  test.each([
    ['members.example.org', true],
    ['MEMBERS.example.org:8443', true],
    ['a.partners.example.org', true],
    ['partners.example.org', false],
    ['[::1]:8080', true],
    ['forged.example', false],
    ['members.example.org.forged.example', false],
  ])('Host %s is served: %s', (host, served) => {
    expect(hosts.serves(request({ host }))).toBe(served);
    expect(hosts.ownsOrigin(request({ host }))).toBe(served);
  });

  test('a request without a usable Host is not served', () => {
    expect(hosts.serves(request({}))).toBe(false);
    expect(hosts.serves(request({ host: 'bad host' }))).toBe(false);
  });

  test('X-Forwarded-Host counts only on a connection from a trusted proxy', () => {
    const proxied = policy({ ALLOWED_HOSTS: 'members.example.org', TRUST_PROXY: '10.0.0.5' });
    const headers = { host: '127.0.0.1:8080', 'x-forwarded-host': 'members.example.org' };
    expect(proxied.serves(request(headers, '10.0.0.5'))).toBe(true);
    expect(proxied.serves(request(headers, '203.0.113.9'))).toBe(false);
  });

  test('* serves any host', () => {
    expect(policy({ ALLOWED_HOSTS: '*' }).serves(request({ host: 'anything.example' }))).toBe(true);
  });

  test('the setting refuses what is not a host name', () => {
    expect(() => loadConfig({ ALLOWED_HOSTS: 'http://members.example.org' })).toThrow(/ALLOWED_HOSTS: must be host names/);
    expect(() => loadConfig({ ALLOWED_HOSTS: ' , ' })).toThrow(/ALLOWED_HOSTS/);
  });
});

describe('without ALLOWED_HOSTS', () => {
  test('every host is served (the WSDL names the host it was asked for, as ASMX does)', () => {
    expect(policy({}).serves(request({ host: 'forged.example' }))).toBe(true);
  });

  test('only a loopback name stands for the service\'s own origin', () => {
    const hosts = policy({});
    expect(['localhost:8080', '127.0.0.1:8080', '[::1]:8080'].map((host) => hosts.ownsOrigin(request({ host })))).toEqual([true, true, true]);
    expect(hosts.ownsOrigin(request({ host: 'forged.example' }))).toBe(false);
    expect(hosts.ownsOrigin(request({}))).toBe(false);
  });

  test('with PUBLIC_URL, the origin is that, whatever the Host', () => {
    expect(policy({ PUBLIC_URL: 'https://members.example.org' }).ownsOrigin(request({ host: 'forged.example' }))).toBe(true);
  });
});
