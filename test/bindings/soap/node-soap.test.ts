import { jest } from '@jest/globals';
import soap from 'soap';
import type { CallAnswer, OperationTable } from '../../../src/bindings/operations.js';
import { createSoapServer, createSoapStack, internalsOf, type SoapStack, type StackOptions } from '../../../src/bindings/soap/node-soap.js';
import { createWsdlDocument } from '../../../src/bindings/discovery/wsdl-document.js';
import { loadConfig, type Config } from '../../../src/config/config.js';
import { OPERATION_PARAMETERS, type OperationName } from '../../../src/service/wsdl-types.js';
import { callContext } from '../../helpers/call-context.js';
import { REFERENCE } from '../../helpers/reference-data.js';
import { SOAP_NS, XSI_XSD, type SoapVersion } from '../../helpers/soap-envelopes.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** What the stub table answers the next call with, and the parameters it was called with. */
let answer: (operation: OperationName) => CallAnswer<OperationName>;
const seen: Array<Record<string, string | null>> = [];
/** A table of the configured operations that records the parameters and answers with `answer`. */
function stubTable(config: Config): OperationTable {
  return {
    names: config.operations,
    offers: (name): name is OperationName => config.operations.some((operation) => operation === name),
    parameters: (operation) => OPERATION_PARAMETERS[operation],
    async invoke(operation, read) {
      seen.push(Object.fromEntries(OPERATION_PARAMETERS[operation].map((name) => [name, read(name)])));
      return answer(operation) as never;
    },
  };
}
const result = (text: string) => (operation: OperationName) =>
  ({ ok: true, outcome: undefined as never, result: text, response: { [`${operation}Result`]: text } }) as unknown as CallAnswer<OperationName>;
/** The stack options a deployment with this configuration builds. */
const optionsFor = (config: Config): StackOptions => ({
  wsdlXml: createWsdlDocument(config).render('http://localhost/Authentication.asmx'),
  names: config.wsdlNames,
  operations: stubTable(config),
});
const stackOptions = optionsFor(loadConfig({ SOAP_NAMESPACE: REFERENCE.namespace }));
const context = callContext('127.0.0.1');
/** ASMX's response envelope up to the Body's content: the soap prefix for both versions, xsi and xsd declared. */
const ENVELOPE_START = Object.fromEntries(
  (['1.1', '1.2'] as const).map((version) => [version, `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP_NS[version]}" ${XSI_XSD}><soap:Body>`]),
) as Record<SoapVersion, string>;

/**
 * Pins what src/bindings/soap/node-soap.ts relies on in node-soap beyond its documented API, so that an
 * upgrade that changes it fails here rather than on the wire, and that a call passes node-soap once.
 */
describe('node-soap as we use it', () => {
  let stack: SoapStack;
  beforeAll(async () => {
    stack = await createSoapStack(stackOptions);
  });
  beforeEach(() => {
    seen.length = 0;
  });
  const parameters = new Map([['securityPassword', 'pw'], ['token', 't']]);

  test.each(['1.1', '1.2'] as const)('SOAP %s: the envelope is the version\'s and declares soap, xsi and xsd only (wsdl.xmlnsInEnvelope is still where node-soap keeps them)', async (version) => {
    answer = result('x');
    const { response } = await stack.reply({ version, operation: 'AuthenticateToken', parameters }, context);
    expect(response).toEqual({
      status: 200,
      contentType: version === '1.1' ? 'text/xml; charset=utf-8' : 'application/soap+xml; charset=utf-8',
      cacheControl: 'private, max-age=0',
      body: `${ENVELOPE_START[version]}<AuthenticateTokenResponse xmlns="${REFERENCE.namespace}"><AuthenticateTokenResult>x</AuthenticateTokenResult></AuthenticateTokenResponse></soap:Body></soap:Envelope>`,
    });
  });

  test('escapeXML off: the result text is written as we escaped it, quotes and line ends included', async () => {
    answer = result(`<?xml version="1.0" encoding="utf-16"?><a b='c'/>\n`);
    const { response } = await stack.reply({ version: '1.1', operation: 'AuthenticateToken', parameters }, context);
    expect(response.body).toContain(`<AuthenticateTokenResult>&lt;?xml version="1.0" encoding="utf-16"?&gt;&lt;a b='c'/&gt;\n</AuthenticateTokenResult>`);
  });

  test('useEmptyTag: an empty result is a present, self-closing element', async () => {
    answer = result('');
    const { response } = await stack.reply({ version: '1.2', operation: 'AuthenticateCookie', parameters }, context);
    expect(response.body).toContain('<AuthenticateCookieResponse xmlns="http://membership.example.org/webservices/"><AuthenticateCookieResult /></AuthenticateCookieResponse>');
  });

  test('a fault is written by the one fault writer and comes back with the answer it was written from', async () => {
    answer = () => ({ ok: false, fault: { code: 'CALLER_THROTTLED', args: ['Too many attempts'], retryAfterSeconds: 900 } });
    const reply = await stack.reply({ version: '1.2', operation: 'AuthenticateToken', parameters }, context);
    expect(reply.answer).toEqual({ ok: false, fault: { code: 'CALLER_THROTTLED', args: ['Too many attempts'], retryAfterSeconds: 900 } });
    expect(reply.response).toEqual({
      status: 500,
      contentType: 'application/soap+xml; charset=utf-8',
      cacheControl: 'private, max-age=0',
      retryAfterSeconds: 900,
      body: `${ENVELOPE_START['1.2']}<soap:Fault><soap:Code><soap:Value>soap:Receiver</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">Server was unable to process request. ---&gt; Too many attempts</soap:Text></soap:Reason><soap:Detail /></soap:Fault></soap:Body></soap:Envelope>`,
    });
  });

  test('the bound parameters reach the operation table as they are: text, white space, empty and absent', async () => {
    answer = result('');
    const bound = new Map([['securityPassword', ' a&b '], ['loginCookie', null], ['cookieDomain', '\n  ']]);
    await stack.reply({ version: '1.1', operation: 'AuthenticateCookie', parameters: bound }, context);
    expect(seen).toEqual([{ securityPassword: ' a&b ', loginCookie: null, cookieDomain: '\n  ' }]);
    await stack.reply({ version: '1.1', operation: 'AuthenticateToken', parameters: new Map([['token', '']]) }, context);
    expect(seen[1]).toEqual({ securityPassword: null, token: '' });
  });

  test('node-soap parses nothing: the client bytes were read once, by the envelope reader in front', async () => {
    const parse = jest.spyOn(soap.WSDL.prototype, 'xmlToObject');
    try {
      answer = result('x');
      await stack.reply({ version: '1.1', operation: 'AuthenticateToken', parameters }, context);
      await stack.reply({ version: '1.2', operation: 'AuthenticateToken', parameters }, context);
      expect(parse).not.toHaveBeenCalled();
      expect(seen).toHaveLength(2);
    } finally {
      parse.mockRestore();
    }
  });

  test.each<[string, OperationName]>([
    ['isgweb', 'Login'],
    ['crm4m', 'ValidateUser'],
  ])("finds the output elements under the WSDL's own service and binding names (PROFILE=%s, %s)", async (profile, operation) => {
    const profiledStack = await createSoapStack(optionsFor(loadConfig({ PROFILE: profile })));
    answer = result('x');
    const bound = new Map(OPERATION_PARAMETERS[operation].map((name): [string, string] => [name, `${name}-value`]));
    for (const version of ['1.1', '1.2'] as const) {
      const { response } = await profiledStack.reply({ version, operation, parameters: bound }, context);
      expect(response.status).toBe(200);
      expect(response.body).toContain(`<${operation}Result>x</${operation}Result>`);
    }
    expect(seen).toEqual([Object.fromEntries(bound), Object.fromEntries(bound)]);
  });

  test('its server keeps the WSDL on server.wsdl and the envelope writer its dispatch ends with in server._envelope', async () => {
    const internals = internalsOf(await createSoapServer(stackOptions, '1.2'));
    expect(internals.wsdl).toBeInstanceOf(soap.WSDL);
    expect(internals._envelope('<x />', '', false)).toBe(`${ENVELOPE_START['1.2']}<x /></soap:Body></soap:Envelope>`);
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
