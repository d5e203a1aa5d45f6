/**
 * Request ids: an acceptable incoming X-Request-Id is kept, anything else replaced by a new UUID; the id is
 * echoed in the response and carried by every log line written about the request, after the awaits of the
 * store, argon2 and node-soap, and never leaks into another request's lines.
 */
import request from 'supertest';
import { acceptedRequestId } from '../../src/web/request-id.js';
import { hashPassword } from '../../src/service/passwords.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { operationElement, soapEnvelope } from '../helpers/soap-envelopes.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NS = REFERENCE.namespace;

let app: TestApp;

/** The log lines written since `from`. */
const linesSince = (from: number) => app.logLines.slice(from);

describe('acceptedRequestId', () => {
  it.each(['a', 'abc-123', 'A.b_c:d-e', '0'.repeat(128), 'f1b6b7a2-4c1e-4a4e-9f0e-1a2b3c4d5e6f'])('keeps %j', (id) => {
    expect(acceptedRequestId(id)).toBe(id);
  });

  it.each(['', ' ', 'has space', 'semi;colon', 'slash/y', 'é', '0'.repeat(129), 'line\nbreak', 'a,b'])('replaces %j with a UUID', (id) => {
    expect(acceptedRequestId(id)).toMatch(UUID);
  });

  it('takes the first of repeated headers, and generates one without a header; never the same twice', () => {
    expect(acceptedRequestId(['first', 'second'])).toBe('first');
    const generated = new Set(Array.from({ length: 50 }, () => acceptedRequestId(undefined)));
    expect(generated.size).toBe(50);
    for (const id of generated) expect(id).toMatch(UUID);
  });
});

describe('over HTTP', () => {
  beforeEach(async () => {
    app = await startTestApp();
  });
  afterEach(() => app.close());

  it('honours an acceptable X-Request-Id: echoed, and on the call log line', async () => {
    const from = app.logLines.length;
    const res = await request(app.baseUrl)
      .get('/Authentication.asmx/AuthenticateToken')
      .query({ securityPassword: REFERENCE.password, token: REFERENCE.token })
      .set('X-Request-Id', 'nginx-7f3a.1:2')
      .expect(200);
    expect(res.headers['x-request-id']).toBe('nginx-7f3a.1:2');
    const lines = linesSince(from);
    expect(lines).toEqual([expect.objectContaining({ message: 'call', binding: 'httpget', requestId: 'nginx-7f3a.1:2' })]);
  });

  it('replaces an unacceptable one with a new UUID, and logs that one', async () => {
    const from = app.logLines.length;
    const res = await request(app.baseUrl).get('/Authentication.asmx/AuthenticateToken').query({ securityPassword: 'x', token: 'y' }).set('X-Request-Id', 'evil id; drop');
    const id = res.headers['x-request-id'];
    expect(id).toMatch(UUID);
    expect(linesSince(from)).toEqual([expect.objectContaining({ message: 'call', outcome: 'invalid-security-password', requestId: id })]);
  });

  it('generates one when there is none, on every kind of response', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/Authentication.asmx?wsdl', '/Login', '/nowhere']) {
      const res = await request(app.baseUrl).get(path);
      expect([path, res.headers['x-request-id']]).toEqual([path, expect.stringMatching(UUID)]);
    }
  });

  it('every log line written during a call carries its id, over each binding and the sign-in page', async () => {
    await app.store.setMemberPassword(REFERENCE.memberId, await hashPassword('pw-of-ada'), Date.now());
    const http = () => request(app.baseUrl);
    const page = await http().get('/Login').expect(200);
    const csrfCookie = (page.headers['set-cookie'] as unknown as string[]).find((line) => line.startsWith('signin-csrf='));
    const form = { cookie: csrfCookie?.split(';')[0] ?? '', csrf: /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '' };
    const calls: Array<[string, () => request.Test]> = [
      [
        'soap11',
        () =>
          http()
            .post('/Authentication.asmx')
            .set('Content-Type', 'text/xml; charset=utf-8')
            .set('SOAPAction', `"${NS}AuthenticateToken"`)
            .send(
              soapEnvelope('1.1', operationElement(NS, 'AuthenticateToken', { securityPassword: REFERENCE.password, token: REFERENCE.token })),
            ),
      ],
      [
        'soap12',
        () =>
          http()
            .post('/Authentication.asmx')
            .set('Content-Type', 'application/soap+xml; charset=utf-8')
            .send(
              soapEnvelope(
                '1.2',
                operationElement(NS, 'AuthenticateCookie', { securityPassword: REFERENCE.password, loginCookie: REFERENCE.cookie, cookieDomain: REFERENCE.domain }),
              ),
            ),
      ],
      ['httppost', () => http().post('/Authentication.asmx/AuthenticateToken').type('form').send({ securityPassword: REFERENCE.password, token: 'nope' })],
      // A real sign-in: argon2 runs on libuv's thread pool between the awaits.
      ['sign-in', () => http().post('/Login').type('form').set('Cookie', form.cookie).send({ csrf: form.csrf, login: 'ada', password: 'pw-of-ada' })],
      ['sign-in-refused', () => http().post('/Login').type('form').send({ login: 'ada', password: 'pw-of-ada' })],
    ];
    for (const [name, call] of calls) {
      const from = app.logLines.length;
      const res = await call().set('X-Request-Id', `req-${name}`);
      const lines = linesSince(from);
      expect([name, lines.length > 0]).toEqual([name, true]);
      if (name === 'sign-in') expect(lines).toContainEqual(expect.objectContaining({ message: 'sign-in', outcome: 'signed-in' }));
      for (const line of lines) expect([name, line.requestId]).toEqual([name, `req-${name}`]);
      expect(res.headers['x-request-id']).toBe(`req-${name}`);
    }
  });

  it('concurrent requests never mix their ids up', async () => {
    await app.close();
    app = await startTestApp({ env: { TRUST_PROXY: 'true' } });
    const from = app.logLines.length;
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        request(app.baseUrl)
          .get('/Authentication.asmx/AuthenticateToken')
          .query({ securityPassword: REFERENCE.password, token: i % 2 ? REFERENCE.token : 'other' })
          .set('X-Forwarded-For', `192.0.2.${i}`)
          .set('X-Request-Id', `concurrent-${i}`),
      ),
    );
    const lines = linesSince(from);
    expect(lines).toHaveLength(30);
    for (const line of lines) expect(line.requestId).toBe(`concurrent-${String(line.client).split('.')[3]}`);
  });
});
