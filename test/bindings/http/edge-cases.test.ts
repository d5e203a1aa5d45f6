/**
 * HTTP GET/POST edge cases the reference transcripts (test/golden) do not cover: how Request.QueryString and
 * Request.Form read names and values, a switched-off binding, the cookie domain and the JSON result format.
 * Every request goes out as exact bytes; every response must carry a Content-Length.
 */
import { REFERENCE } from '../../helpers/reference-data.js';
import { expectResponse, sendChecked } from '../../helpers/raw-http.js';
import { xmlText } from '../../helpers/soap-envelopes.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

const NS = REFERENCE.namespace;
const TEXT_XML = 'text/xml; charset=utf-8';
const TEXT_PLAIN = 'text/plain; charset=utf-8';
const FORM = 'application/x-www-form-urlencoded';
const PASSWORD = `securityPassword=${REFERENCE.password}`;

/** The HTTP bindings' result document, with its LF after the declaration. */
const stringResult = (result: string) =>
  `<?xml version="1.0" encoding="utf-8"?>\n${result === '' ? `<string xmlns="${NS}" />` : `<string xmlns="${NS}">${xmlText(result)}</string>`}`;

const get = (port: number, pathAndQuery: string) => sendChecked(port, { method: 'GET', target: pathAndQuery });
const post = (port: number, path: string, body: string, contentType: string | undefined = FORM) =>
  sendChecked(port, { method: 'POST', target: path, headers: { 'Content-Type': contentType }, body });

/** The text of an HTML page, entities decoded, so that a message can be looked for as ASP.NET words it. */
const pageText = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

const TOKEN_PATH = '/Authentication.asmx/AuthenticateToken';
const COOKIE_PATH = '/Authentication.asmx/AuthenticateCookie';
/** A token whose form encoding needs "+" for spaces and %-escapes. */
const AWKWARD_TOKEN = 'a b+c&d=e%f/ü';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  await app.services.sessions.create(REFERENCE.memberId, REFERENCE.domain, { token: AWKWARD_TOKEN });
});
afterAll(() => app.close());

describe('parameters as Request.QueryString and Request.Form read them', () => {
  test('parameter names are case-insensitive', async () => {
    const response = await get(app.port, `${TOKEN_PATH}?SECURITYPASSWORD=${REFERENCE.password}&Token=${REFERENCE.token}`);
    expectResponse(response, 200, TEXT_XML, stringResult(REFERENCE.memberId));
  });

  test('a repeated parameter joins its values with commas (GET)', async () => {
    const response = await get(app.port, `${TOKEN_PATH}?${PASSWORD}&token=${REFERENCE.token}&token=x`);
    expectResponse(response, 200, TEXT_XML, stringResult(''));
  });

  test('a repeated parameter joins its values with commas, whatever the letter case (POST)', async () => {
    const response = await post(app.port, TOKEN_PATH, `${PASSWORD}&token=${REFERENCE.token}&TOKEN=`);
    expectResponse(response, 200, TEXT_XML, stringResult(''));
    const password = await post(app.port, TOKEN_PATH, `${PASSWORD}&securityPassword=${REFERENCE.password}&token=${REFERENCE.token}`);
    expectResponse(password, 500, TEXT_PLAIN, 'Invalid security password\n');
  });

  test('POST with a form content type in other letter case and a charset works', async () => {
    const response = await post(app.port, TOKEN_PATH, `${PASSWORD}&token=${REFERENCE.token}`, 'Application/X-WWW-Form-URLEncoded; Charset=UTF-8');
    expectResponse(response, 200, TEXT_XML, stringResult(REFERENCE.memberId));
  });

  test('a POST body decodes "+" as a space and %-escapes as UTF-8', async () => {
    const encoded = 'a+b%2Bc%26d%3De%25f%2F%C3%BC';
    const response = await post(app.port, TOKEN_PATH, `securityPassword=%73%33cret&token=${encoded}`);
    expectResponse(response, 200, TEXT_XML, stringResult(REFERENCE.memberId));
    const literalPlus = await post(app.port, TOKEN_PATH, `${PASSWORD}&token=a+b+c%26d%3De%25f%2F%C3%BC`);
    expectResponse(literalPlus, 200, TEXT_XML, stringResult(''));
  });

  test('a query string decodes "+" and %-escapes the same way', async () => {
    const response = await get(app.port, `${TOKEN_PATH}?${PASSWORD}&token=a+b%2Bc%26d%3De%25f%2F%C3%BC`);
    expectResponse(response, 200, TEXT_XML, stringResult(REFERENCE.memberId));
  });

  test('white space in a value is kept', async () => {
    const response = await get(app.port, `${TOKEN_PATH}?${PASSWORD}&token=%20${REFERENCE.token}%20`);
    expectResponse(response, 200, TEXT_XML, stringResult(''));
    const password = await post(app.port, TOKEN_PATH, `securityPassword=+${REFERENCE.password}&token=${REFERENCE.token}`);
    expectResponse(password, 500, TEXT_PLAIN, 'Invalid security password\n');
  });
});

describe('AuthenticateCookie over GET', () => {
  const cookieQuery = (domain: string) => `${COOKIE_PATH}?${PASSWORD}&loginCookie=${REFERENCE.cookie}&cookieDomain=${encodeURIComponent(domain)}`;

  test('the session\'s own domain signs in', async () => {
    expectResponse(await get(app.port, cookieQuery(REFERENCE.domain)), 200, TEXT_XML, stringResult(REFERENCE.memberId));
  });

  test.each(['.other.org', '.example.org.evil.com', '.badexample.org'])('a different cookie domain (%s) gives an empty result', async (domain) => {
    expectResponse(await get(app.port, cookieQuery(domain)), 200, TEXT_XML, stringResult(''));
  });
});

describe('a switched-off HTTP GET binding (HTTP_GET_ENABLED=false)', () => {
  let off: TestApp;
  beforeAll(async () => {
    off = await startTestApp({ env: { HTTP_GET_ENABLED: 'false' } });
  });
  afterAll(() => off.close());

  test('GET on an operation gets the HTML "Request format is unrecognized for URL unexpectedly ending in …"', async () => {
    const response = await get(off.port, `${TOKEN_PATH}?${PASSWORD}&token=${REFERENCE.token}`);
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const text = pageText(response.body.toString('utf8'));
    expect(text).toContain("Request format is unrecognized for URL unexpectedly ending in '/AuthenticateToken'.");
    expect(text).not.toContain(REFERENCE.memberId);
  });

  test('POST still works', async () => {
    const response = await post(off.port, TOKEN_PATH, `${PASSWORD}&token=${REFERENCE.token}`);
    expectResponse(response, 200, TEXT_XML, stringResult(REFERENCE.memberId));
  });

  test('the WSDL no longer lists the AuthenticationHttpGet port', async () => {
    const wsdl = (await get(off.port, '/Authentication.asmx?wsdl')).body.toString('utf8');
    expect(wsdl).not.toContain('<wsdl:port name="AuthenticationHttpGet" ');
    expect(wsdl).toContain('<wsdl:port name="AuthenticationHttpPost" ');
  });
});

describe('RESULT_FORMAT=json', () => {
  let json: TestApp;
  const ODD = { id: 'member-<&>', username: 'odd', email: 'a&b@example.org', firstName: 'Tom & "Jerry"', lastName: "<O'Malley>" };
  beforeAll(async () => {
    json = await startTestApp({ env: { RESULT_FORMAT: 'json' } });
    await json.services.members.add(ODD);
    await json.services.sessions.create(ODD.id, REFERENCE.domain, { token: 'odd-token', cookie: 'odd-cookie' });
  });
  afterAll(() => json.close());

  test('the <string> holds the JSON escaped as XML text: & < > only, quotes as they are', async () => {
    const response = await get(json.port, `${TOKEN_PATH}?${PASSWORD}&token=odd-token`);
    const document = JSON.stringify({
      status: 'Success',
      message: '',
      contactid: ODD.id,
      pa_token: 'odd-token',
      emailaddress1: ODD.email,
      firstname: ODD.firstName,
      lastname: ODD.lastName,
      fullname: `${ODD.firstName} ${ODD.lastName}`,
    });
    expectResponse(response, 200, TEXT_XML, stringResult(document));
    const body = response.body.toString('utf8');
    expect(body).toContain('{"status":"Success","message":"","contactid":"member-&lt;&amp;&gt;"');
    expect(body).toContain('\\"Jerry\\"');
    expect(body).not.toContain('&quot;');
    expect(body).not.toContain('&apos;');
  });

  test('the reference member over POST, and a failure that never says "success"', async () => {
    const ok = await post(json.port, COOKIE_PATH, `${PASSWORD}&loginCookie=${REFERENCE.cookie}&cookieDomain=${REFERENCE.domain}`);
    expect(ok.status).toBe(200);
    expect(ok.body.toString('utf8')).toContain(`<string xmlns="${NS}">{"status":"Success","message":"","contactid":"${REFERENCE.memberId}","pa_token":"${REFERENCE.token}"`);
    const failure = await get(json.port, `${TOKEN_PATH}?${PASSWORD}&token=nope`);
    expectResponse(failure, 200, TEXT_XML, stringResult('{"status":"Failure","message":"Invalid token: no live session has this token"}'));
    expect(failure.body.toString('utf8').toLowerCase()).not.toContain('success');
  });
});
