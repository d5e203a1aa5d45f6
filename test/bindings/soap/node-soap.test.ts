import soap from 'soap';
import { createNodeSoapStack, SoapFaultError, type NodeSoapStack } from '../../../src/bindings/soap/node-soap.js';
import { createWsdlDocument } from '../../../src/bindings/discovery/wsdl-document.js';
import { loadConfig } from '../../../src/config/config.js';
import { REFERENCE } from '../../helpers/reference-data.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Pins what src/bindings/soap/node-soap.ts relies on in node-soap beyond its documented API, so that an
 * upgrade that changes it fails here rather than on the wire.
 */
describe('node-soap as we use it', () => {
  let stack: NodeSoapStack;
  beforeAll(async () => {
    const config = loadConfig({ SOAP_NAMESPACE: REFERENCE.namespace });
    stack = await createNodeSoapStack({
      wsdlXml: createWsdlDocument(config).render('http://localhost/Authentication.asmx'),
      serviceName: config.serviceName,
      namespace: config.soapNamespace,
    });
  });
  const call = (result: string | Error) => ({
    invoke: async () => {
      if (result instanceof Error) throw result;
      return result;
    },
  });
  const params = new Map([['securityPassword', 'pw'], ['token', 't']]);

  test('the envelope declares soap, xsi and xsd only (wsdl.xmlnsInEnvelope is still where node-soap keeps them)', async () => {
    const reply = await stack.process('1.1', 'AuthenticateToken', params, call('x'));
    expect(reply.body.startsWith('<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>')).toBe(true);
  });

  test('escapeXML off: the result text is written as we escaped it, quotes included', async () => {
    const reply = await stack.process('1.1', 'AuthenticateToken', params, call(`<?xml version="1.0" encoding="utf-16"?><a b='c'/>`));
    expect(reply.body).toContain(`<AuthenticateTokenResult>&lt;?xml version="1.0" encoding="utf-16"?&gt;&lt;a b='c'/&gt;</AuthenticateTokenResult>`);
  });

  test('useEmptyTag: an empty result is a present, self-closing element', async () => {
    const reply = await stack.process('1.2', 'AuthenticateCookie', params, call(''));
    expect(reply.body).toContain('<AuthenticateCookieResponse xmlns="http://membership.example.org/webservices/"><AuthenticateCookieResult /></AuthenticateCookieResponse>');
  });

  test('a fault carries its statusCode and the SOAP 1.2 Text keeps its xml:lang attribute', async () => {
    const reply = await stack.process('1.2', 'AuthenticateToken', params, call(new SoapFaultError('Invalid security password')));
    expect(reply.status).toBe(500);
    expect(reply.body).toContain('<soap:Reason><soap:Text xml:lang="en">Server was unable to process request. ---&gt; Invalid security password</soap:Text></soap:Reason><soap:Detail /></soap:Fault>');
  });

  test('the call reaches the handler through the serverless request connection, with the canonical arguments', async () => {
    const seen: Array<Record<string, string | null>> = [];
    await stack.process('1.1', 'AuthenticateCookie', new Map([['securityPassword', 'a&b'], ['loginCookie', null], ['cookieDomain', '']]), {
      invoke: async (_operation, parameters) => {
        seen.push({ ...parameters });
        return '';
      },
    });
    expect(seen).toEqual([{ securityPassword: 'a&b', loginCookie: null, cookieDomain: '' }]);
  });

  test('preserveWhitespace reaches the parser: white space around and inside values is kept', async () => {
    const seen: Array<Record<string, string | null>> = [];
    await stack.process('1.1', 'AuthenticateToken', new Map([['securityPassword', ' pw '], ['token', '\n  ']]), {
      invoke: async (_operation, parameters) => {
        seen.push({ ...parameters });
        return '';
      },
    });
    expect(seen).toEqual([{ securityPassword: ' pw ', token: '\n  ' }]);
  });
});

describe("node-soap's own client against the served WSDL", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  test.each([false, true])('calls both operations (SOAP 1.2: %s)', async (soap12) => {
    const client = await soap.createClientAsync(`${app.baseUrl}/Authentication.asmx?wsdl`, { forceSoap12Headers: soap12 });
    const [token] = await client.AuthenticateTokenAsync({ securityPassword: REFERENCE.password, token: REFERENCE.token });
    expect(token).toEqual({ AuthenticateTokenResult: REFERENCE.memberId });
    const [cookie] = await client.AuthenticateCookieAsync({ securityPassword: REFERENCE.password, loginCookie: REFERENCE.cookie, cookieDomain: REFERENCE.domain });
    expect(cookie).toEqual({ AuthenticateCookieResult: REFERENCE.memberId });
    await expect(client.AuthenticateTokenAsync({ securityPassword: 'wrong', token: REFERENCE.token })).rejects.toThrow(/Invalid security password/);
    const soapLines = app.logLines.filter((l) => l.message === 'call' && l.binding === (soap12 ? 'soap12' : 'soap11'));
    expect(soapLines.length).toBeGreaterThanOrEqual(3);
  });
});
