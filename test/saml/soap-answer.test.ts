import { readSoapLogoutResponse } from '../../src/saml/inbound/soap-answer.js';

const SOAP = 'xmlns:soap11="http://schemas.xmlsoap.org/soap/envelope/"';
const response = (attributes = '') =>
  `<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a1" Version="2.0" IssueInstant="2026-11-28T12:00:00Z" InResponseTo="_r1"${attributes}>` +
  '<saml:Issuer>https://sp.example.test/metadata</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:LogoutResponse>';
const envelope = (body: string) => `<soap11:Envelope ${SOAP}><soap11:Body>${body}</soap11:Body></soap11:Envelope>`;

describe('an SP\'s answer over the SOAP back channel', () => {
  it('is the LogoutResponse in the envelope\'s Body: its issuer, the request it answers and its status', () => {
    expect(readSoapLogoutResponse(envelope(response()))).toEqual({
      ok: true,
      response: expect.objectContaining({ kind: 'LogoutResponse', issuer: 'https://sp.example.test/metadata', inResponseTo: '_r1', statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success' }),
    });
  });

  it.each([
    ['nothing', ''],
    ['a bare LogoutResponse, without an envelope', response()],
    ['an envelope of another SOAP version', `<soap12:Envelope xmlns:soap12="http://www.w3.org/2003/05/soap-envelope"><soap12:Body>${response()}</soap12:Body></soap12:Envelope>`],
    ['an empty Body', envelope('')],
    ['two messages', envelope(response() + response().replace('_a1', '_a2'))],
    ['a LogoutRequest', envelope('<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_x" Version="2.0" IssueInstant="2026-11-28T12:00:00Z"/>')],
    ['a DTD', `<!DOCTYPE x [<!ENTITY e "e">]>${envelope(response())}`],
    ['a document past the message bounds', envelope(response(` Extra="${'x'.repeat(70_000)}"`))],
  ])('is refused when it is %s', (_name, xml) => {
    expect(readSoapLogoutResponse(xml)).toMatchObject({ ok: false, reason: expect.any(String) });
  });
});
