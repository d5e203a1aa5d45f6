import { randomBytes } from 'node:crypto';
import bodyParser from 'body-parser';
import express, { type Request, type Response, type Router } from 'express';
import type { Config } from '../config/config.js';
import type { SamlSp } from '../service/saml/index.js';
import { sessionCookieDomain } from '../web/endpoint-url.js';
import { cookieValues } from '../web/login-cookie.js';
import { requestIdOf } from '../web/request-id.js';
import { acceptAuthnRequest, AUTHN_REQUEST_LIFETIME_MS, defaultConsumerService, type PendingSignIn } from './authn-request.js';
import { MAX_RELAY_STATE_BYTES } from './inbound/bindings.js';
import { readInbound, type InboundInput } from './inbound/read-inbound.js';
import { STATUS } from './login-response.js';
import { messageView } from './pages.js';
import { SAML_PATHS } from './paths.js';
import { answerSignIn, answerStatus, type AnswerDeps } from './sign-in-answer.js';
import type { SpMetadata } from './sp-metadata.js';

export interface SsoDeps extends AnswerDeps {
  config: Config;
}

/**
 * A POSTed message is base64 of at most MESSAGE_BOUNDS' 64 KiB document (src/saml/xml-guard.ts), with a
 * RelayState: anything larger is not one.
 */
export const MESSAGE_FORM_LIMIT = '100kb';

/** The inbound message of a request: the Redirect binding's query exactly as sent, or the POST form's fields. */
export function inboundOf(req: Request): InboundInput {
  if (req.method === 'GET') {
    const at = req.originalUrl.indexOf('?');
    return { binding: 'redirect', rawQuery: at < 0 ? '' : req.originalUrl.slice(at + 1) };
  }
  const body = (req.body ?? {}) as Record<string, unknown>;
  const params = Object.fromEntries(Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  return { binding: 'post', params };
}

/**
 * Web Browser SSO: AuthnRequests over HTTP-Redirect and HTTP-POST, the way back from the sign-in page, and
 * sign-ins the identity provider starts itself (an SP's name, for a member signed in or after the sign-in page).
 * A member signed in on this browser is not asked again unless the SP asks (ForceAuthn); IsPassive is answered
 * without a page. A request that cannot be answered at a registered ACS URL gets an error page, never a Response.
 */
export function createSsoRoutes(deps: SsoDeps): Router {
  const { config, services, logger, pages, urls, metadataOf } = deps;
  const router = express.Router();

  const page = (req: Request, res: Response, status: number, title: string, text: string) => {
    res.status(status).type('html').send(pages.render(req, res, 'message', messageView(title, text)));
  };
  const refused = (req: Request, res: Response, reason: string, sp?: SamlSp) => {
    deps.metrics?.samlSignIn('refused');
    logger.info('saml sign-in', { outcome: 'refused', ...(sp ? { sp: sp.name } : {}), reason, requestId: requestIdOf(req) });
    page(req, res, 400, 'Signing in could not continue', `The site you came from sent a sign-in request this service cannot take (${reason}). Go back to that site and try again.`);
  };
  const signedInOn = (req: Request) => services.oidc.sessions.signedIn(cookieValues(req, config.signin.cookieName), sessionCookieDomain(req, config));
  const toSignInPage = (res: Response, handle: string, again: boolean) => {
    const query = `ReturnUrl=${encodeURIComponent(urls.continuePath(handle))}${again ? '&prompt=login' : ''}`;
    res.redirect(303, `${config.signin.loginPath}?${query}`);
  };

  /**
   * Answers a sign-in by the browser's login cookie: at once for a member signed in (unless the SP asks for a fresh
   * sign-in), IsPassive with NoPassive for one who is not, otherwise through the sign-in page.
   */
  const decide = async (req: Request, res: Response, sp: SamlSp, metadata: SpMetadata, handle: string, pending: PendingSignIn) => {
    const signedIn = await signedInOn(req);
    if (pending.isPassive || (signedIn && !pending.forceAuthn)) {
      if (!(await services.saml.requests.consume(handle))) return refused(req, res, 'a request answered already', sp);
      if (signedIn && !pending.forceAuthn) return answerSignIn(req, res, deps, sp, metadata, pending, signedIn);
      const status = { top: STATUS.responder, second: STATUS.noPassive };
      return answerStatus(req, res, deps, sp, { acsUrl: pending.acsUrl, inResponseTo: pending.inResponseTo, relayState: pending.relayState, status, reason: 'passive: the member is not signed in' });
    }
    await services.saml.requests.update(handle, { ...pending, sessionBefore: signedIn?.sessionId ?? null });
    return toSignInPage(res, handle, signedIn !== null);
  };

  const authnRequest = async (req: Request, res: Response) => {
    let found: { sp: SamlSp; metadata: SpMetadata } | undefined;
    const read = await readInbound(inboundOf(req), async (issuer) => {
      const sp = await services.saml.sps.findByEntityId(issuer);
      if (!sp) return null;
      found = { sp, metadata: metadataOf(sp) };
      return { signingCertificates: found.metadata.signingCertificates, requireSigned: sp.settings.requireSignedRequests };
    });
    if (!read.ok || !found) return refused(req, res, read.ok ? 'no service provider' : `${read.reason.code}: ${read.reason.text}`);
    const { sp, metadata } = found;
    if (read.message.kind !== 'AuthnRequest') return refused(req, res, `a ${read.message.kind} at the single sign-on endpoint`, sp);
    const accepted = acceptAuthnRequest(read.message, sp, metadata, { ssoUrl: urls.sso, now: Date.now(), relayState: read.relayState, signed: read.signed });
    if (!accepted.ok) {
      const { refusal } = accepted;
      if ('page' in refusal) return refused(req, res, refusal.page, sp);
      return answerStatus(req, res, deps, sp, { ...refusal, inResponseTo: read.message.id, relayState: read.relayState });
    }
    const { pending } = accepted;
    const opened = await services.saml.requests.open({ spId: sp.id, requestId: read.message.id, kind: 'authn', payload: pending, lifetimeMs: AUTHN_REQUEST_LIFETIME_MS });
    if (opened === 'replayed') return refused(req, res, 'a request ID used before (a replay)', sp);
    // A request posted from the SP's site is a cross-site POST, which carries no SameSite=Lax login cookie: the
    // browser is sent on to this service's own address (a GET, which carries it), where the sign-in is decided.
    if (req.method === 'POST') return res.redirect(303, urls.continuePath(opened.handle));
    return decide(req, res, sp, metadata, opened.handle, pending);
  };

  router.get(SAML_PATHS.sso, authnRequest);
  router.post(SAML_PATHS.sso, bodyParser.urlencoded({ extended: false, limit: MESSAGE_FORM_LIMIT }), authnRequest);

  router.get(`${SAML_PATHS.continue}/:handle`, async (req, res) => {
    const handle = req.params['handle'] ?? '';
    const request = await services.saml.requests.find(handle);
    const sp = request?.kind === 'authn' ? await services.saml.sps.findById(request.spId) : null;
    if (!request || !sp) {
      logger.info('saml sign-in', { outcome: 'expired', requestId: requestIdOf(req) });
      return page(req, res, 400, 'This sign-in has expired', 'Go back to the site you came from and sign in again.');
    }
    const pending = request.payload as PendingSignIn;
    // Not yet sent to the sign-in page: an AuthnRequest that came over HTTP-POST, decided here.
    if (pending.sessionBefore === undefined) return decide(req, res, sp, metadataOf(sp), handle, pending);
    const signedIn = await signedInOn(req);
    const again = pending.forceAuthn && signedIn !== null && signedIn.sessionId === pending.sessionBefore;
    if (!signedIn || again) return toSignInPage(res, handle, again);
    if (!(await services.saml.requests.consume(handle))) return page(req, res, 400, 'This sign-in has expired', 'Go back to the site you came from and sign in again.');
    const replaced = pending.sessionBefore;
    if (replaced && replaced !== signedIn.sessionId) {
      // Signed in afresh (ForceAuthn), the member is in a new session: the one it replaced ends, which tells its
      // other SPs (as the OpenID provider's REPLACED_SESSION does); this SP, signed in again now, is not one of them.
      await services.saml.sessions.leave(replaced, sp.id);
      await services.sessions.end(replaced);
    }
    return answerSignIn(req, res, deps, sp, metadataOf(sp), pending, signedIn);
  });

  router.get(SAML_PATHS.ssoInit, async (req, res) => {
    const name = typeof req.query['sp'] === 'string' ? req.query['sp'] : '';
    const relayState = typeof req.query['RelayState'] === 'string' ? req.query['RelayState'] : undefined;
    const sp = name ? await services.saml.sps.find(name) : null;
    if (!sp) return page(req, res, 404, 'No such site', 'There is no site of that name to sign in to.');
    if (relayState !== undefined && Buffer.byteLength(relayState) > MAX_RELAY_STATE_BYTES) return refused(req, res, 'a RelayState too long', sp);
    const metadata = metadataOf(sp);
    const acsUrl = defaultConsumerService(metadata);
    if (acsUrl === undefined) return refused(req, res, 'a service provider without an HTTP-POST assertion consumer service', sp);
    const pending: PendingSignIn = { acsUrl, nameIdFormat: sp.settings.nameIdFormat, forceAuthn: false, ...(relayState === undefined ? {} : { relayState }) };
    // An IdP-initiated sign-in has no request ID of the SP's: a random one keeps it apart from every other.
    const opened = await services.saml.requests.open({ spId: sp.id, requestId: `_idp-${randomBytes(16).toString('hex')}`, kind: 'authn', payload: pending, lifetimeMs: AUTHN_REQUEST_LIFETIME_MS });
    if (opened === 'replayed') return refused(req, res, 'a request ID used before (a replay)', sp);
    return decide(req, res, sp, metadata, opened.handle, pending);
  });

  return router;
}
