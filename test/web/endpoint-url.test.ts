import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { endpointUrl, siteRootUrl } from '../../src/web/endpoint-url.js';
import { discoveryServer, testConfig } from '../helpers/discovery.js';

function fakeRequest(headers: IncomingHttpHeaders, socket: { encrypted?: boolean; localAddress?: string; localPort?: number } = {}) {
  return { headers, socket: { localAddress: '192.0.2.7', localPort: 8080, ...socket } } as unknown as IncomingMessage;
}

const plain = testConfig();
const trusting = testConfig({ TRUST_PROXY: 'true' });

describe('endpointUrl', () => {
  test('takes the host and port from the Host header', () => {
    expect(endpointUrl(fakeRequest({ host: 'svc.example.org:8443' }), plain)).toBe('http://svc.example.org:8443/Authentication.asmx');
    expect(endpointUrl(fakeRequest({ host: '[::1]:9000' }), plain)).toBe('http://[::1]:9000/Authentication.asmx');
  });

  test('lower-cases the host name, as a URI does', () => {
    expect(endpointUrl(fakeRequest({ host: 'Members.Example.ORG' }), plain)).toBe('http://members.example.org/Authentication.asmx');
  });

  test('uses https when the connection is TLS', () => {
    expect(endpointUrl(fakeRequest({ host: 'example.org' }, { encrypted: true }), plain)).toBe('https://example.org/Authentication.asmx');
  });

  test.each(['', 'a b', 'evil"><x', 'example.org:99999', 'example.org:', 'user@example.org', '1.2.3.999', 'example.org/path'])(
    'falls back to the socket address for the invalid Host %j',
    (host) => {
      expect(endpointUrl(fakeRequest({ host }), plain)).toBe('http://192.0.2.7:8080/Authentication.asmx');
    },
  );

  test('brackets an IPv6 socket address and unwraps an IPv4-mapped one', () => {
    expect(endpointUrl(fakeRequest({}, { localAddress: '::1', localPort: 81 }), plain)).toBe('http://[::1]:81/Authentication.asmx');
    expect(endpointUrl(fakeRequest({}, { localAddress: '::ffff:10.1.2.3', localPort: 82 }), plain)).toBe('http://10.1.2.3:82/Authentication.asmx');
  });

  test('ignores X-Forwarded-* unless the proxy is trusted', () => {
    const req = fakeRequest({ host: 'internal:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'example.org', 'x-forwarded-prefix': '/p' });
    expect(endpointUrl(req, plain)).toBe('http://internal:8080/Authentication.asmx');
    expect(endpointUrl(req, trusting)).toBe('https://example.org/p/Authentication.asmx');
  });

  test('ignores invalid X-Forwarded-* values one by one', () => {
    const req = fakeRequest({ host: 'internal:8080', 'x-forwarded-proto': 'gopher', 'x-forwarded-host': 'bad host', 'x-forwarded-prefix': 'no-slash' });
    expect(endpointUrl(req, trusting)).toBe('http://internal:8080/Authentication.asmx');
  });

  test('puts the forwarded prefix before the base path, without a trailing slash', () => {
    const config = testConfig({ TRUST_PROXY: 'true', BASE_PATH: '/webservices' });
    expect(endpointUrl(fakeRequest({ host: 'example.org', 'x-forwarded-prefix': '/edge/' }), config)).toBe(
      'http://example.org/edge/webservices/Authentication.asmx',
    );
  });

  test('a public URL overrides everything', () => {
    const config = testConfig({ TRUST_PROXY: 'true', BASE_PATH: '/ignored', PUBLIC_URL: 'https://members.example.org/webservices' });
    const req = fakeRequest({ host: 'internal', 'x-forwarded-host': 'proxy.example.org' }, { encrypted: false });
    expect(endpointUrl(req, config)).toBe('https://members.example.org/webservices/Authentication.asmx');
  });

  // Node answers an HTTP/1.1 request without Host with 400 itself; HTTP/1.0 may leave it out.
  test('an HTTP/1.0 request without a Host header gets the address of the socket it came in on', async () => {
    const server = discoveryServer(testConfig()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const socket = connect(port, '127.0.0.1');
      socket.end('GET /Authentication.asmx?wsdl HTTP/1.0\r\n\r\n');
      let response = '';
      for await (const chunk of socket) response += String(chunk);
      expect(response).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(response).toContain(`<soap:address location="http://127.0.0.1:${port}/Authentication.asmx" />`);
    } finally {
      server.close();
    }
  });
});

describe('siteRootUrl', () => {
  test('the endpoint URL without the base path and the file, a trusted proxy\'s prefix kept', () => {
    expect(siteRootUrl(fakeRequest({ host: 'svc.example.org:8443' }), testConfig({ BASE_PATH: '/webservices' }))).toBe('http://svc.example.org:8443');
    const req = fakeRequest({ host: 'internal:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'example.org', 'x-forwarded-prefix': '/edge' });
    expect(siteRootUrl(req, testConfig({ TRUST_PROXY: 'true', BASE_PATH: '/webservices' }))).toBe('https://example.org/edge');
  });

  test('from a public URL: without its base path, or its origin when it does not end in the base path', () => {
    const req = fakeRequest({ host: 'internal' });
    expect(siteRootUrl(req, testConfig({ BASE_PATH: '/webservices', PUBLIC_URL: 'https://members.example.org/edge/webservices' }))).toBe('https://members.example.org/edge');
    expect(siteRootUrl(req, testConfig({ BASE_PATH: '/webservices', PUBLIC_URL: 'https://members.example.org/ws' }))).toBe('https://members.example.org');
  });
});
