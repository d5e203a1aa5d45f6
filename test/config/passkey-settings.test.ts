/**
 * WEBAUTHN_RP_ID and the passkeys' relying-party id it, COOKIE_DOMAIN or PUBLIC_URL gives: validated once at the
 * start, an IP address refused with a clear problem.
 */
import { loadConfig } from '../../src/config/config.js';
import { problemsOf } from './problems.js';

describe('the passkeys\' relying-party id', () => {
  it('is WEBAUTHN_RP_ID, else COOKIE_DOMAIN without its dot, else PUBLIC_URL\'s host, else left to each request', () => {
    const rpId = (env: Record<string, string>) => loadConfig(env).signin.passkeyRpId;
    expect(rpId({ WEBAUTHN_RP_ID: 'Example.ORG', PUBLIC_URL: 'https://members.example.org', COOKIE_DOMAIN: '.members.example.org' })).toBe('example.org');
    expect(rpId({ COOKIE_DOMAIN: '.Example.org', PUBLIC_URL: 'https://members.example.org' })).toBe('example.org');
    expect(rpId({ PUBLIC_URL: 'https://members.example.org/iservices' })).toBe('members.example.org');
    expect(rpId({})).toBeUndefined();
  });

  it('derived from an IP address is none: browsers refuse passkeys there', () => {
    expect(loadConfig({ PUBLIC_URL: 'http://127.0.0.1:8080' }).signin.passkeyRpId).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'http://[::1]:8080' }).signin.passkeyRpId).toBeUndefined();
  });

  it('refuses an IP address, or what is not a domain name, as WEBAUTHN_RP_ID', () => {
    const refusal = 'WEBAUTHN_RP_ID: must be a domain name, not an IP address: browsers refuse passkeys on an IP address (use localhost to try them on one machine)';
    expect(problemsOf({ WEBAUTHN_RP_ID: '127.0.0.1' })).toEqual([refusal]);
    expect(problemsOf({ WEBAUTHN_RP_ID: '[::1]' })).toEqual([refusal]);
    expect(problemsOf({ WEBAUTHN_RP_ID: 'https://example.org' })).toEqual(['WEBAUTHN_RP_ID: must be a domain name such as example.org']);
  });

  it('refuses a WEBAUTHN_RP_ID that PUBLIC_URL\'s host or one of ALLOWED_HOSTS is not under', () => {
    expect(problemsOf({ WEBAUTHN_RP_ID: 'example.org', PUBLIC_URL: 'https://members.example.com' })).toEqual([
      'WEBAUTHN_RP_ID: members.example.com (PUBLIC_URL or ALLOWED_HOSTS) is not example.org nor under it: passkeys would not work there',
    ]);
    expect(problemsOf({ WEBAUTHN_RP_ID: 'example.org', ALLOWED_HOSTS: 'members.example.org,*.example.net,*' })).toEqual([
      'WEBAUTHN_RP_ID: example.net (PUBLIC_URL or ALLOWED_HOSTS) is not example.org nor under it: passkeys would not work there',
    ]);
    expect(loadConfig({ WEBAUTHN_RP_ID: 'example.org', PUBLIC_URL: 'https://members.example.org', ALLOWED_HOSTS: '*.example.org' }).signin.passkeyRpId).toBe('example.org');
  });
});
