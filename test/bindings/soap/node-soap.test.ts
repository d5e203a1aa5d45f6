import { jest } from '@jest/globals';
import soap from 'soap';
import type { CallAnswer, OperationTable } from '../../../src/bindings/operations.js';
import { createNodeSoapStack, createSoapServer, wsdlOf, type NodeSoapStack, type StackOptions } from '../../../src/bindings/soap/node-soap.js';
import { createWsdlDocument } from '../../../src/bindings/discovery/wsdl-document.js';
import { loadConfig, type Config } from '../../../src/config/config.js';
import { OPERATION_PARAMETERS, type OperationName } from '../../../src/service/wsdl-types.js';
import { callContext } from '../../helpers/call-context.js';
import { REFERENCE } from '../../helpers/reference-data.js';
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
  namespace: config.soapNamespace,
  operations: stubTable(config),
});
const stackOptions = optionsFor(loadConfig({ SOAP_NAMESPACE: REFERENCE.namespace }));
const call = () => ({ context: callContext('127.0.0.1') });

/**
 * Pins what src/bindings/soap/node-soap.ts relies on in node-soap beyond its documented API, so that an
 * upgrade that changes it fails here rather than on the wire.
 */
describe('node-soap as we use it', () => {
  let stack: NodeSoapStack;
  beforeAll(async () => {
    stack = await createNodeSoapStack(stackOptions);
  });
  beforeEach(() => {
    seen.length = 0;
  });
  const params = new Map([['securityPassword', 'pw'], ['token', 't']]);

  test('the envelope declares soap, xsi and xsd only (wsdl.xmlnsInEnvelope is still where node-soap keeps them)', async () => {
    answer = result('x');
    const reply = await stack.process('1.1', 'AuthenticateToken', params, call());
    expect(reply.body.startsWith('<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>')).toBe(true);
  });

  test('escapeXML off: the result text is written as we escaped it, quotes included', async () => {
    answer = result(`<?xml version="1.0" encoding="utf-16"?><a b='c'/>`);
    const reply = await stack.process('1.1', 'AuthenticateToken', params, call());
    expect(reply.body).toContain(`<AuthenticateTokenResult>&lt;?xml version="1.0" encoding="utf-16"?&gt;&lt;a b='c'/&gt;</AuthenticateTokenResult>`);
  });

  test('useEmptyTag: an empty result is a present, self-closing element', async () => {
    answer = result('');
    const reply = await stack.process('1.2', 'AuthenticateCookie', params, call());
    expect(reply.body).toContain('<AuthenticateCookieResponse xmlns="http://membership.example.org/webservices/"><AuthenticateCookieResult /></AuthenticateCookieResponse>');
  });

  test('a fault carries its statusCode and the SOAP 1.2 Text keeps its xml:lang attribute', async () => {
    answer = () => ({ ok: false, fault: { code: 'INVALID_SECURITY_PASSWORD', args: ['Invalid security password'] } });
    const soapCall = call();
    const reply = await stack.process('1.2', 'AuthenticateToken', params, soapCall);
    expect(reply.status).toBe(500);
    expect(reply.body).toContain('<soap:Reason><soap:Text xml:lang="en">Server was unable to process request. ---&gt; Invalid security password</soap:Text></soap:Reason><soap:Detail /></soap:Fault>');
    expect(soapCall).toMatchObject({ answer: { ok: false } });
  });

  test('the call reaches the operation table through the serverless request connection, with the declared arguments only', async () => {
    answer = result('');
    const bound = new Map([['securityPassword', 'a&b'], ['loginCookie', null], ['cookieDomain', ''], ['extra', 'x']]);
    await stack.process('1.1', 'AuthenticateCookie', bound, call());
    expect(seen).toEqual([{ securityPassword: 'a&b', loginCookie: null, cookieDomain: '' }]);
  });

  test('preserveWhitespace reaches the parser: white space around and inside values is kept', async () => {
    answer = result('');
    await stack.process('1.1', 'AuthenticateToken', new Map([['securityPassword', ' pw '], ['token', '\n  ']]), call());
    expect(seen).toEqual([{ securityPassword: ' pw ', token: '\n  ' }]);
  });

  test.each<[string, OperationName]>([
    ['isgweb', 'Login'],
    ['crm4m', 'ValidateUser'],
  ])("finds the methods under the WSDL's own service and port names (PROFILE=%s, %s)", async (profile, operation) => {
    const profiledStack = await createNodeSoapStack(optionsFor(loadConfig({ PROFILE: profile })));
    answer = result('x');
    const parameters = new Map(OPERATION_PARAMETERS[operation].map((name): [string, string] => [name, `${name}-value`]));
    const reply = await profiledStack.process('1.1', operation, parameters, call());
    expect(reply.status).toBe(200);
    expect(reply.body).toContain(`<${operation}Result>x</${operation}Result>`);
    expect(seen).toEqual([Object.fromEntries(parameters)]);
  });

  test('schema descriptions are built once at start-up: a request rebuilds none (definitions.messages is still where node-soap keeps them)', async () => {
    const server = await createSoapServer(stackOptions, '1.1');
    const wsdl = wsdlOf(server);
    const messages = Object.values(wsdl.definitions?.messages ?? {});
    expect(messages.length).toBeGreaterThanOrEqual(4);
    for (const message of messages) expect(message.description(wsdl.definitions)).toBe(message.description(wsdl.definitions));
    // The element each message describes: node-soap's own description of it must not run during a request.
    const element = (messages[0] as unknown as { element: object }).element;
    const prototype = Object.getPrototypeOf(element) as { description: (...args: unknown[]) => unknown };
    const described = jest.spyOn(prototype, 'description');
    try {
      answer = result('x');
      const reply = await server.processRequest(
        `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><t:AuthenticateToken xmlns:t="${REFERENCE.namespace}"><t:token>a</t:token></t:AuthenticateToken></s:Body></s:Envelope>`,
        { headers: { soapaction: `"${REFERENCE.namespace}AuthenticateToken"` }, connection: { call: call() } } as never,
      );
      expect(reply.body).toContain('<AuthenticateTokenResult>x</AuthenticateTokenResult>');
      expect(described).not.toHaveBeenCalled();
    } finally {
      described.mockRestore();
    }
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
