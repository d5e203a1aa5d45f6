import request from 'supertest';
import { discoveryServer, REFERENCE_NAMESPACE, testConfig } from '../../helpers/discovery.js';
import { SOAP_NS } from '../../helpers/soap-envelopes.js';

const server = discoveryServer(testConfig({ SOAP_NAMESPACE: REFERENCE_NAMESPACE }));

function sections(html: string): string[] {
  return [...html.matchAll(/<h3 id="sample-[^"]+">([^<]+)<\/h3>/g)].map((m) => m[1] ?? '');
}

describe('help pages', () => {
  test('the service page names the service, its namespace, its operations with their parameters and the WSDL', async () => {
    const res = await request(server).get('/Authentication.asmx').set('Host', 'svc.example.org');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('private');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    expect(res.text).toMatch(/^<!DOCTYPE html>\n<html lang="en">/);
    expect(res.text).toContain('<title>Authentication Web Service</title>');
    expect(res.text).toContain('<h1>Authentication</h1>');
    expect(res.text).toContain(`<code>${REFERENCE_NAMESPACE}</code>`);
    expect(res.text).toContain('<a href="Authentication.asmx?WSDL">');
    expect(res.text).toContain('<a href="Authentication.asmx?op=AuthenticateToken">AuthenticateToken</a>');
    expect(res.text).toContain('<a href="Authentication.asmx?op=AuthenticateCookie">AuthenticateCookie</a>');
    expect(res.text).toContain('<code>securityPassword</code>, <code>loginCookie</code>, <code>cookieDomain</code>');
    expect(res.text).not.toContain('<script');
  });

  test('a GET carrying a SOAP body is still the help page (g09)', async () => {
    const res = await request(server)
      .get('/Authentication.asmx')
      .set('Content-Type', 'text/xml; charset=utf-8')
      .send(`<?xml version="1.0"?><soap:Envelope xmlns:soap="${SOAP_NS['1.1']}" />`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h2>Operations</h2>');
  });

  test.each(['?op=Nope', '?op=authenticatetoken', '?op=', '?op=constructor', '?foo=bar'])('%s shows the service page', async (query) => {
    const res = await request(server).get(`/Authentication.asmx${query}`).set('Host', 'svc.example.org');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h2>Operations</h2>');
  });

  test('an operation page has a test form and the four samples at the address the client used', async () => {
    const res = await request(server).get('/Authentication.asmx?OP=AuthenticateToken').set('Host', 'svc.example.org:8443');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<title>AuthenticateToken - Authentication Web Service</title>');
    expect(res.text).toContain('<h2>AuthenticateToken</h2>');
    expect(res.text).toContain('<form method="post" action="http://svc.example.org:8443/Authentication.asmx/AuthenticateToken">');
    for (const name of ['securityPassword', 'token']) {
      expect(res.text).toContain(`<label for="param-${name}">${name}</label>`);
      expect(res.text).toContain(`<input type="text" id="param-${name}" name="${name}"`);
    }
    expect(res.text).not.toContain('name="loginCookie"');
    expect(sections(res.text)).toEqual(['SOAP 1.1', 'SOAP 1.2', 'HTTP GET', 'HTTP POST']);
    expect(res.text).toContain('POST /Authentication.asmx HTTP/1.1\nHost: svc.example.org:8443\nContent-Type: text/xml; charset=utf-8\n');
    expect(res.text).toContain(`SOAPAction: &quot;${REFERENCE_NAMESPACE}AuthenticateToken&quot;`);
    expect(res.text).toContain('Content-Type: application/soap+xml; charset=utf-8');
    expect(res.text).toContain('      &lt;token&gt;<var>string</var>&lt;/token&gt;');
    expect(res.text).toContain('&lt;AuthenticateTokenResult&gt;<var>string</var>&lt;/AuthenticateTokenResult&gt;');
    expect(res.text).toContain(
      'GET /Authentication.asmx/AuthenticateToken?securityPassword=<var>string</var>&amp;token=<var>string</var> HTTP/1.1\nHost: svc.example.org:8443',
    );
    expect(res.text).toContain('POST /Authentication.asmx/AuthenticateToken HTTP/1.1');
    expect(res.text).toContain('\nsecurityPassword=<var>string</var>&amp;token=<var>string</var></code></pre>');
    expect(res.text).toContain(`&lt;string xmlns=&quot;${REFERENCE_NAMESPACE}&quot;&gt;<var>string</var>&lt;/string&gt;`);
  });

  test('the AuthenticateCookie page asks for its three parameters', async () => {
    const res = await request(server).get('/Authentication.asmx?op=AuthenticateCookie').set('Host', 'svc.example.org');
    for (const name of ['securityPassword', 'loginCookie', 'cookieDomain']) {
      expect(res.text).toContain(`<input type="text" id="param-${name}" name="${name}"`);
    }
  });

  test('samples follow the base path and the forwarded prefix', async () => {
    const proxied = discoveryServer(testConfig({ TRUST_PROXY: 'true', BASE_PATH: '/ws' }));
    const res = await request(proxied)
      .get('/ws/Authentication.asmx?op=AuthenticateToken')
      .set({ Host: 'internal:8080', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'members.example.org', 'X-Forwarded-Prefix': '/edge' });
    expect(res.text).toContain('action="https://members.example.org/edge/ws/Authentication.asmx/AuthenticateToken"');
    expect(res.text).toContain('POST /edge/ws/Authentication.asmx HTTP/1.1\nHost: members.example.org\n');
  });

  test('without HTTP POST there is no form, and only the enabled bindings have samples', async () => {
    const limited = discoveryServer(testConfig({ HTTP_POST_ENABLED: 'false', SOAP11_ENABLED: 'false' }));
    const res = await request(limited).get('/Authentication.asmx?op=AuthenticateToken').set('Host', 'svc.example.org');
    expect(res.text).not.toContain('<form');
    expect(sections(res.text)).toEqual(['SOAP 1.2', 'HTTP GET']);
  });

  test('escapes every interpolated value', async () => {
    const hostile = discoveryServer(
      testConfig({}, { serviceName: '<b>Svc</b>', soapNamespace: 'urn:"><script>alert(1)</script>/', publicUrl: 'https://x.example/a"b<i>' }),
    );
    for (const path of ['/Authentication.asmx', '/Authentication.asmx?op=AuthenticateToken']) {
      const res = await request(hostile).get(path).set('Host', 'svc.example.org');
      expect(res.text).not.toMatch(/<script|<b>|<i>|a"b/);
      expect(res.text).toContain('<h1>&lt;b&gt;Svc&lt;/b&gt;</h1>');
      expect(res.text).toContain('urn:&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;/');
    }
    const page = await request(hostile).get('/Authentication.asmx?op=AuthenticateToken');
    expect(page.text).toContain('action="https://x.example/a&quot;b&lt;i&gt;/Authentication.asmx/AuthenticateToken"');
  });
});
