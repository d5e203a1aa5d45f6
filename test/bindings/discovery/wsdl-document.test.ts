import { readFileSync } from 'node:fs';
import request from 'supertest';
import { parseStringPromise } from 'xml2js';
import { OPERATION_PARAMETERS } from '../../../src/service/wsdl-types.js';
import { discoveryServer, expectTranscript, REFERENCE_NAMESPACE, testConfig, transcript } from '../../helpers/discovery.js';

const ALL_OPERATIONS = Object.keys(OPERATION_PARAMETERS);

const reference = discoveryServer(testConfig({ SOAP_NAMESPACE: REFERENCE_NAMESPACE }));

function addresses(wsdl: string): string[] {
  return [...wsdl.matchAll(/<(?:soap|soap12|http):address location="([^"]*)" \/>/g)].map((m) => m[1] ?? '');
}

describe('?wsdl', () => {
  test('matches the reference WSDL (a01) byte for byte, with its status and headers', async () => {
    const res = await request(reference).get('/Authentication.asmx?WSDL').set('Host', '127.0.0.1:9082');
    expectTranscript(res, 'a01-wsdl-upper');
  });

  test.each(['wsdl', 'Wsdl', 'WSDL'])('the query key is case-insensitive: ?%s', async (key) => {
    const res = await request(reference).get(`/Authentication.asmx?${key}`).set('Host', '127.0.0.1:9082');
    expect(res.text).toBe(transcript('a01-wsdl-upper').body);
  });

  test('with every operation offered, serves wsdl/Authentication.wsdl with only the addresses filled in', async () => {
    const authored = readFileSync(new URL('../../../wsdl/Authentication.wsdl', import.meta.url), 'utf8');
    const server = discoveryServer(testConfig({ OPERATIONS: ALL_OPERATIONS.join(',') }));
    const res = await request(server).get('/Authentication.asmx?wsdl').set('Host', 'example.org');
    expect(res.text).toBe(authored.split('http://localhost/').join('http://example.org/'));
  });

  test('parses as XML, with four ports named after the service', async () => {
    const res = await request(reference).get('/Authentication.asmx?wsdl').set('Host', '127.0.0.1:9082');
    const parsed = await parseStringPromise(res.text);
    const definitions = parsed['wsdl:definitions'];
    expect(definitions.$.targetNamespace).toBe(REFERENCE_NAMESPACE);
    const ports = definitions['wsdl:service'][0]['wsdl:port'];
    expect(ports.map((port: { $: { name: string } }) => port.$.name)).toEqual([
      'AuthenticationSoap',
      'AuthenticationSoap12',
      'AuthenticationHttpGet',
      'AuthenticationHttpPost',
    ]);
  });

  test('keeps the port of the Host header in all four addresses', async () => {
    const res = await request(reference).get('/Authentication.asmx?WSDL').set('Host', 'svc.example.org:8443');
    expect(addresses(res.text)).toEqual(Array(4).fill('http://svc.example.org:8443/Authentication.asmx'));
  });

  test('puts the base path in the address', async () => {
    const server = discoveryServer(testConfig({ BASE_PATH: '/webservices/' }));
    const res = await request(server).get('/webservices/Authentication.asmx?wsdl').set('Host', 'svc.example.org');
    expect(addresses(res.text)).toEqual(Array(4).fill('http://svc.example.org/webservices/Authentication.asmx'));
  });

  const forwarded = {
    'X-Forwarded-Proto': 'https, http',
    'X-Forwarded-Host': 'members.example.org, proxy.internal',
    'X-Forwarded-Prefix': '/public',
  };

  test('ignores X-Forwarded-* unless the proxy is trusted', async () => {
    const res = await request(reference).get('/Authentication.asmx?wsdl').set('Host', '127.0.0.1:9082').set(forwarded);
    expect(res.text).toBe(transcript('a05-wsdl-xforwarded').body);
  });

  test('honours the first X-Forwarded-* values, prefix before the base path, when the proxy is trusted', async () => {
    const server = discoveryServer(testConfig({ TRUST_PROXY: 'true', BASE_PATH: '/ws' }));
    const res = await request(server).get('/ws/Authentication.asmx?wsdl').set('Host', '10.0.0.5:8080').set(forwarded);
    expect(addresses(res.text)).toEqual(Array(4).fill('https://members.example.org/public/ws/Authentication.asmx'));
  });

  test('a configured public URL wins over the Host header and X-Forwarded-*', async () => {
    const server = discoveryServer(testConfig({ TRUST_PROXY: 'true', PUBLIC_URL: 'https://members.example.org/webservices/' }));
    const res = await request(server).get('/Authentication.asmx?wsdl').set('Host', '10.0.0.5:8080').set(forwarded);
    expect(addresses(res.text)).toEqual(Array(4).fill('https://members.example.org/webservices/Authentication.asmx'));
  });

  test('a hostile Host header does not reach the body', async () => {
    const res = await request(reference).get('/Authentication.asmx?wsdl').set('Host', 'evil.example"><x:injected/><y a="');
    expect(res.text).not.toMatch(/evil|injected/);
    const { port } = res.request.url.match(/:(?<port>\d+)\//)?.groups ?? {};
    expect(addresses(res.text)).toEqual(Array(4).fill(`http://127.0.0.1:${port}/Authentication.asmx`));
    await expect(parseStringPromise(res.text)).resolves.toBeDefined();
  });

  test('a custom service name renames the port types, bindings, ports and service but not the path', async () => {
    const server = discoveryServer(testConfig({ SERVICE_NAME: 'MemberAuth' }));
    const res = await request(server).get('/Authentication.asmx?wsdl').set('Host', 'example.org');
    expect(res.text).not.toMatch(/"(tns:)?Authentication[A-Z]/);
    expect(res.text).toContain('<wsdl:portType name="MemberAuthHttpGet">');
    expect(res.text).toContain('<wsdl:binding name="MemberAuthSoap12" type="tns:MemberAuthSoap">');
    expect(res.text).toContain('<wsdl:port name="MemberAuthSoap" binding="tns:MemberAuthSoap">');
    expect(res.text).toContain('<wsdl:service name="MemberAuth">');
    expect(addresses(res.text)).toEqual(Array(4).fill('http://example.org/Authentication.asmx'));
  });

  test('escapes the configured namespace', async () => {
    const server = discoveryServer(testConfig({ SOAP_NAMESPACE: 'urn:a&b"<c>/' }));
    const res = await request(server).get('/Authentication.asmx?wsdl').set('Host', 'example.org');
    expect(res.text).toContain('targetNamespace="urn:a&amp;b&quot;&lt;c&gt;/"');
    const parsed = await parseStringPromise(res.text);
    expect(parsed['wsdl:definitions'].$.targetNamespace).toBe('urn:a&b"<c>/');
  });

  test('a namespace that contains the placeholder address is kept whole', async () => {
    const server = discoveryServer(testConfig({ SOAP_NAMESPACE: 'http://localhost/Authentication.asmx/' }));
    const res = await request(server).get('/Authentication.asmx?wsdl').set('Host', 'example.org');
    expect(res.text).toContain('targetNamespace="http://localhost/Authentication.asmx/"');
    expect(addresses(res.text)).toEqual(Array(4).fill('http://example.org/Authentication.asmx'));
  });

  test('a disabled binding loses its binding and port, and nothing else changes', async () => {
    const full = await request(reference).get('/Authentication.asmx?wsdl').set('Host', 'example.org');
    const server = discoveryServer(testConfig({ SOAP_NAMESPACE: REFERENCE_NAMESPACE, HTTP_GET_ENABLED: 'false' }));
    const res = await request(server).get('/Authentication.asmx?wsdl').set('Host', 'example.org');
    const expected = full.text
      .replace(/\n {2}<wsdl:binding name="AuthenticationHttpGet" [\s\S]*?<\/wsdl:binding>/, '')
      .replace(/\n {4}<wsdl:port name="AuthenticationHttpGet" [\s\S]*?<\/wsdl:port>/, '');
    expect(expected).not.toBe(full.text);
    expect(res.text).toBe(expected);
    expect(addresses(res.text)).toHaveLength(3);
    await expect(parseStringPromise(res.text)).resolves.toBeDefined();
  });

  test('disabling SOAP 1.1 keeps the SOAP 1.2 binding', async () => {
    const server = discoveryServer(testConfig({ SOAP11_ENABLED: 'false' }));
    const res = await request(server).get('/Authentication.asmx?wsdl').set('Host', 'example.org');
    expect(res.text).not.toContain('<wsdl:binding name="AuthenticationSoap" ');
    expect(res.text).not.toContain('<wsdl:port name="AuthenticationSoap" ');
    expect(res.text).toContain('<wsdl:binding name="AuthenticationSoap12" ');
    expect(res.text).toContain('<wsdl:port name="AuthenticationSoap12" ');
  });
});

/** The WSDL as a JAX-WS or svcutil client reads it: names of the service, ports, bindings, portTypes and their operations. */
async function contractOf(wsdl: string) {
  const definitions = (await parseStringPromise(wsdl))['wsdl:definitions'];
  type Named = { $: { name: string; binding?: string; type?: string } };
  const names = (elements: Named[] | undefined) => (elements ?? []).map((element) => element.$.name);
  const operationsOf = (parent: { 'wsdl:operation'?: Named[] }) => names(parent['wsdl:operation']);
  return {
    namespace: definitions.$.targetNamespace as string,
    service: names(definitions['wsdl:service'])[0],
    serviceDocumentation: definitions['wsdl:service'][0]['wsdl:documentation']?.[0]?._ as string | undefined,
    ports: definitions['wsdl:service'][0]['wsdl:port'].map((port: Named) => [port.$.name, port.$.binding]),
    bindings: definitions['wsdl:binding'].map((binding: Named & { 'wsdl:operation': Named[] }) => [binding.$.name, binding.$.type, operationsOf(binding)]),
    portTypes: definitions['wsdl:portType'].map((portType: Named & { 'wsdl:operation': Named[] }) => [portType.$.name, operationsOf(portType)]),
    documentation: Object.fromEntries(
      definitions['wsdl:portType'][0]['wsdl:operation'].map((op: Named & { 'wsdl:documentation'?: Array<{ _: string }> }) => [op.$.name, op['wsdl:documentation']?.[0]?._]),
    ),
    messages: names(definitions['wsdl:message']),
    elements: names(definitions['wsdl:types'][0]['s:schema'][0]['s:element']),
  };
}

describe('?wsdl of a profile', () => {
  const wsdlOf = async (env: Record<string, string>) =>
    (await request(discoveryServer(testConfig(env))).get(`${testConfig(env).basePath}/Authentication.asmx?wsdl`).set('Host', 'example.org')).text;

  test('isgweb: service Authentication, ports AuthenticationSoap…, portType Authentication_x0020_Web_x0020_ServiceSoap, five operations', async () => {
    const contract = await contractOf(await wsdlOf({ PROFILE: 'isgweb' }));
    const operations = ['AuthenticateCookie', 'AuthenticateToken', 'AuthenticateUser', 'DeleteUserSession', 'Login'];
    expect(contract.namespace).toBe('http://ibridge.isgsolutions.com/Authentication/');
    expect(contract.service).toBe('Authentication');
    expect(contract.ports).toEqual([
      ['AuthenticationSoap', 'tns:AuthenticationSoap'],
      ['AuthenticationSoap12', 'tns:AuthenticationSoap12'],
      ['AuthenticationHttpGet', 'tns:AuthenticationHttpGet'],
      ['AuthenticationHttpPost', 'tns:AuthenticationHttpPost'],
    ]);
    expect(contract.bindings).toEqual([
      ['AuthenticationSoap', 'tns:Authentication_x0020_Web_x0020_ServiceSoap', operations],
      ['AuthenticationSoap12', 'tns:Authentication_x0020_Web_x0020_ServiceSoap', operations],
      ['AuthenticationHttpGet', 'tns:Authentication_x0020_Web_x0020_ServiceHttpGet', operations],
      ['AuthenticationHttpPost', 'tns:Authentication_x0020_Web_x0020_ServiceHttpPost', operations],
    ]);
    expect(contract.portTypes).toEqual([
      ['Authentication_x0020_Web_x0020_ServiceSoap', operations],
      ['Authentication_x0020_Web_x0020_ServiceHttpGet', operations],
      ['Authentication_x0020_Web_x0020_ServiceHttpPost', operations],
    ]);
    expect(contract.serviceDocumentation).toMatch(/^The Authentication web service is used to authenticate a user in the iMIS database/);
    expect(contract.documentation).toEqual({
      AuthenticateCookie: 'Obtain the user that is authenticated by Imis login page.',
      AuthenticateToken: 'Verifies the existence of a user session.',
      AuthenticateUser: "Logins the user into the system using the 'Unified Login' architecture.",
      DeleteUserSession: 'Deletes a user session that has been created using the AuthenticateUser method.',
      Login: 'Logins the user into the system verifying if the username and password are correct and exist in the database.',
    });
  });

  test('crm4m: everything named Authentication_x0020_Web_x0020_Service…, four operations', async () => {
    const contract = await contractOf(await wsdlOf({ PROFILE: 'crm4m' }));
    const operations = ['AuthenticateToken', 'AuthenticateUser', 'DeleteUserSession', 'ValidateUser'];
    const name = 'Authentication_x0020_Web_x0020_Service';
    expect(contract.namespace).toBe('http://webportalbridge.ptassoc.com/Authentication/');
    expect(contract.service).toBe(name);
    expect(contract.ports).toEqual(['Soap', 'Soap12', 'HttpGet', 'HttpPost'].map((suffix) => [`${name}${suffix}`, `tns:${name}${suffix}`]));
    expect(contract.bindings.map(([binding, type]: string[]) => [binding, type])).toEqual([
      [`${name}Soap`, `tns:${name}Soap`],
      [`${name}Soap12`, `tns:${name}Soap`],
      [`${name}HttpGet`, `tns:${name}HttpGet`],
      [`${name}HttpPost`, `tns:${name}HttpPost`],
    ]);
    expect(contract.portTypes).toEqual(['Soap', 'HttpGet', 'HttpPost'].map((suffix) => [`${name}${suffix}`, operations]));
    expect(contract.serviceDocumentation).toMatch(/CRM4M database/);
  });

  test('an operation not offered leaves no element, message or operation behind', async () => {
    const contract = await contractOf(await wsdlOf({ OPERATIONS: 'AuthenticateToken,Login' }));
    expect(contract.elements).toEqual(['AuthenticateToken', 'AuthenticateTokenResponse', 'Login', 'LoginResponse', 'string']);
    expect(contract.messages).toEqual(
      ['Soap', 'HttpGet', 'HttpPost'].flatMap((kind) => ['AuthenticateToken', 'Login'].flatMap((op) => [`${op}${kind}In`, `${op}${kind}Out`])),
    );
    for (const [, operations] of contract.portTypes) expect(operations).toEqual(['AuthenticateToken', 'Login']);
  });

  test('a setting given on its own wins over the profile', async () => {
    const contract = await contractOf(await wsdlOf({ PROFILE: 'isgweb', SOAP_NAMESPACE: 'http://members.example.org/ws/', WSDL_PORT_TYPE_NAME: 'Auth', OPERATIONS: 'AuthenticateToken' }));
    expect(contract.namespace).toBe('http://members.example.org/ws/');
    expect(contract.portTypes).toEqual([['AuthSoap', ['AuthenticateToken']], ['AuthHttpGet', ['AuthenticateToken']], ['AuthHttpPost', ['AuthenticateToken']]]);
    expect(contract.service).toBe('Authentication');
  });

  test('documentation is escaped and stays well-formed', async () => {
    const env = { SERVICE_DOCUMENTATION: 'A <b>&"quoted"</b> text', OPERATION_DOCUMENTATION: JSON.stringify({ AuthenticateToken: '</wsdl:documentation><x/>' }) };
    const contract = await contractOf(await wsdlOf(env));
    expect(contract.serviceDocumentation).toBe('A <b>&"quoted"</b> text');
    expect(contract.documentation.AuthenticateToken).toBe('</wsdl:documentation><x/>');
  });
});
