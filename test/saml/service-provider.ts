/**
 * A SAML service provider for the flows: @node-saml/node-saml (not samlify, which the identity provider is
 * built on), registered with the running service from the metadata it writes, as `saml-sps add` would.
 */
import { createServer } from 'node:http';
import { SAML, ValidateInResponseTo, type SamlConfig } from '@node-saml/node-saml';
import { samlSpSettings, type SamlSp, type SamlSpSettings } from '../../src/service/saml/index.js';
import { readSpMetadata } from '../../src/saml/sp-metadata.js';
import type { TestApp } from '../helpers/test-app.js';
import { spKeys, type SpKeys } from './sp-messages.js';

export interface ServiceProvider {
  saml: SAML;
  record: SamlSp;
  entityId: string;
  acsUrl: string;
  sloUrl: string;
  keys: SpKeys;
}

/** The SP's SOAP single logout endpoint: the LogoutRequests posted to it, each in its SOAP envelope. */
export interface SoapReceiver {
  url: string;
  envelopes: string[];
  close(): Promise<void>;
}

/** The entity ID of the SP registerSp registers as `name`. */
export const spEntityId = (name: string) => `https://${name}.example.net/saml`;

/** What the SP answers a LogoutRequest over SOAP with: its LogoutResponse (by default to that request, Success), or an HTTP error. */
export type SoapAnswer = { status: number } | { inResponseTo?: string; statusCode?: string };

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/**
 * The SOAP single logout endpoint of the SP registered as `name`: it answers each LogoutRequest with the next of
 * `answers` (then as asked: a LogoutResponse to it, Success), unsigned as the SOAP binding allows.
 */
export async function soapReceiver(name: string, answers: SoapAnswer[] = []): Promise<SoapReceiver> {
  const envelopes: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      envelopes.push(body);
      const answer = answers.shift() ?? {};
      if ('status' in answer) return res.writeHead(answer.status).end();
      const requestId = /<samlp:LogoutRequest[^>]* ID="([^"]+)"/.exec(body)?.[1] ?? '';
      const response =
        `<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_answer-${envelopes.length}" Version="2.0" IssueInstant="${new Date().toISOString()}" InResponseTo="${answer.inResponseTo ?? requestId}">` +
        `<saml:Issuer>${spEntityId(name)}</saml:Issuer><samlp:Status><samlp:StatusCode Value="${answer.statusCode ?? SUCCESS}"/></samlp:Status></samlp:LogoutResponse>`;
      res.writeHead(200, { 'Content-Type': 'text/xml' }).end(`<soap11:Envelope xmlns:soap11="http://schemas.xmlsoap.org/soap/envelope/"><soap11:Body>${response}</soap11:Body></soap11:Envelope>`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/soap-logout`, envelopes, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The LogoutRequest inside a SOAP envelope, as the HTTP-POST binding's form field would carry it. */
export function soapLogoutRequest(envelope: string): string {
  const inner = /<soap11:Body>([\s\S]*)<\/soap11:Body>/.exec(envelope)?.[1] ?? '';
  return Buffer.from(inner).toString('base64');
}

/**
 * Registers an SP named `name` and returns it: the service's signing certificate trusted, the assertion and the
 * response wanted signed, requests signed with its own key, assertions encrypted for it unless `encrypt` is
 * false; `soapLogout` adds a SOAP SingleLogoutService to its metadata; `origin` is where its endpoints are.
 */
export async function registerSp(
  app: TestApp,
  name: string,
  options: { settings?: Partial<SamlSpSettings>; saml?: Partial<SamlConfig>; encrypt?: boolean; soapLogout?: string; origin?: string } = {},
): Promise<ServiceProvider> {
  const entityId = spEntityId(name);
  // Where the SP's endpoints are: nowhere (a closed port) unless a test serves them.
  const origin = options.origin ?? 'http://127.0.0.1:9';
  const acsUrl = `${origin}/${name}/acs`;
  const sloUrl = `${origin}/${name}/slo`;
  const keys = spKeys(name);
  const idpCert = (await app.services.saml.keys.signing()).certificatePem;
  const encrypt = options.encrypt ?? true;
  // The identity provider as its metadata names it: at PUBLIC_URL.
  const idp = app.config.publicUrl ?? app.baseUrl;
  const saml = new SAML({
    entryPoint: `${idp}/saml/sso`,
    logoutUrl: `${idp}/saml/slo`,
    callbackUrl: acsUrl,
    logoutCallbackUrl: sloUrl,
    issuer: entityId,
    audience: entityId,
    idpIssuer: `${idp}/saml/metadata`,
    idpCert,
    privateKey: keys.key,
    publicCert: keys.cert,
    ...(encrypt ? { decryptionPvk: keys.key } : {}),
    identifierFormat: null,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: true,
    validateInResponseTo: ValidateInResponseTo.always,
    // The service's clock runs ahead by a step for each code given (as time would): the SP allows for it.
    acceptedClockSkewMs: 10 * 60 * 1000,
    ...options.saml,
  });
  let metadataXml = saml.generateServiceProviderMetadata(encrypt ? keys.cert : null, keys.cert);
  if (options.soapLogout !== undefined) {
    metadataXml = metadataXml.replace('<AssertionConsumerService', `<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:SOAP" Location="${options.soapLogout}"/><AssertionConsumerService`);
  }
  const read = readSpMetadata(metadataXml);
  if (!read.ok) throw new Error(read.reason);
  const facts = { authnRequestsSigned: read.metadata.authnRequestsSigned, encryptionCertificate: read.metadata.encryptionCertificates.length > 0 };
  const record = await app.services.saml.sps.add({ name, entityId, metadataXml, settings: samlSpSettings(facts, options.settings) });
  return { saml, record, entityId, acsUrl, sloUrl, keys };
}
