import request from 'supertest';
import { parseStringPromise } from 'xml2js';
import { discoveryServer, expectTranscript, REFERENCE_NAMESPACE, testConfig } from '../../helpers/discovery.js';

describe('?disco', () => {
  test('matches the reference disco document (a07) byte for byte, with its status and headers', async () => {
    const server = discoveryServer(testConfig({ SOAP_NAMESPACE: REFERENCE_NAMESPACE }));
    const res = await request(server).get('/Authentication.asmx?disco').set('Host', '127.0.0.1:9082');
    expectTranscript(res, 'a07-disco');
  });

  test('the query key is case-insensitive', async () => {
    const server = discoveryServer(testConfig());
    const lower = await request(server).get('/Authentication.asmx?disco').set('Host', 'example.org');
    const upper = await request(server).get('/Authentication.asmx?DISCO').set('Host', 'example.org');
    expect(upper.text).toBe(lower.text);
  });

  test('names the bindings after the service and lists only the enabled SOAP bindings', async () => {
    const server = discoveryServer(testConfig({ SERVICE_NAME: 'MemberAuth', SOAP11_ENABLED: 'false' }));
    const res = await request(server).get('/Authentication.asmx?disco').set('Host', 'example.org');
    expect(res.text).toContain(
      '<soap address="http://example.org/Authentication.asmx" xmlns:q1="http://tempuri.org/" binding="q1:MemberAuthSoap12" xmlns="http://schemas.xmlsoap.org/disco/soap/" />',
    );
    expect(res.text.match(/<soap /g)).toHaveLength(1);
    expect(res.text).toContain('<contractRef ref="http://example.org/Authentication.asmx?wsdl" docRef="http://example.org/Authentication.asmx"');
  });

  test('escapes the namespace and parses as XML', async () => {
    const server = discoveryServer(testConfig({ SOAP_NAMESPACE: 'urn:x"<y>&/' }));
    const res = await request(server).get('/Authentication.asmx?disco').set('Host', 'example.org');
    expect(res.text).toContain('xmlns:q1="urn:x&quot;&lt;y&gt;&amp;/"');
    await expect(parseStringPromise(res.text)).resolves.toBeDefined();
  });
});
