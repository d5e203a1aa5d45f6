import bodyParser from 'body-parser';
import express, { type Request, type Response, type Router } from 'express';
import { errors, type InteractionResults } from 'oidc-provider';
import type Provider from 'oidc-provider';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { Services } from '../service/index.js';
import { clientAddress } from '../web/client-address.js';
import { sessionCookieDomain } from '../web/endpoint-url.js';
import { cookieValues } from '../web/login-cookie.js';
import { requestIdOf } from '../web/request-id.js';
import { authenticationMethods } from './claims.js';
import { REPLACED_SESSION } from './member-session.js';
import { consentView, messageView, type OidcPages } from './pages.js';
import { INTERACTION_PREFIX } from './paths.js';

export interface InteractionDeps {
  config: Config;
  services: Services;
  logger: Logger;
  pages: OidcPages;
  provider(): Promise<Provider>;
}

/** The consent form is two buttons. */
const FORM_LIMIT = '1kb';
/** What an interaction records, in its result, when it sends the member to the sign-in page. */
const SESSION_BEFORE = 'memberSessionBefore';

/**
 * The steps of an authorization request that need the member: signing in, which is the sign-in page's (a member
 * signed in there is not asked again, unless the client asks for a fresh sign-in), and consent, which clients of
 * other organisations ask for. Mounted below BASE_PATH.
 */
export function createInteractionRouter(deps: InteractionDeps): Router {
  const { config, services, logger, pages } = deps;
  const router = express.Router();
  const interactionPath = (uid: string) => `${config.basePath}${INTERACTION_PREFIX}/${uid}`;

  const show = (req: Request, res: Response, status: number, name: Parameters<OidcPages['render']>[2], view: object) => {
    res.status(status).type('html').send(pages.render(req, res, name, view));
  };

  /** The interaction of this browser, or null when it expired or is not this browser's (its cookie is missing). */
  const detailsOf = async (req: Request, res: Response, provider: Provider) => {
    try {
      const details = await provider.interactionDetails(req, res);
      return details.uid === req.params['uid'] ? details : null;
    } catch (error) {
      if (error instanceof errors.SessionNotFound) return null;
      throw error;
    }
  };
  const expired = (req: Request, res: Response) => {
    logger.info('oidc sign-in', { outcome: 'interaction-expired', requestId: requestIdOf(req) });
    show(req, res, 400, 'message', messageView('This sign-in has expired', 'Go back to the site you came from and sign in again.'));
  };
  const finish = (req: Request, res: Response, provider: Provider, result: InteractionResults) =>
    provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });

  router.get(`${INTERACTION_PREFIX}/:uid`, async (req, res) => {
    const provider = await deps.provider();
    const details = await detailsOf(req, res, provider);
    if (!details) return expired(req, res);
    const { prompt, params, uid } = details;
    if (prompt.name === 'consent') {
      const client = await provider.Client.find(String(params['client_id']));
      if (client?.['first_party'] === true) return finish(req, res, provider, { consent: { grantId: await grantAll(provider, details) } });
      const member = details.session ? await services.members.find(details.session.accountId) : null;
      const memberName = member ? `${member.firstName} ${member.lastName}`.trim() || member.username : '';
      const scopes = (prompt.details['missingOIDCScope'] as string[] | undefined) ?? [];
      return show(req, res, 200, 'oidc-consent', consentView(client?.clientName ?? String(params['client_id']), memberName, scopes, `${interactionPath(uid)}/consent`));
    }
    const signedIn = await services.oidc.sessions.signedIn(cookieValues(req, config.signin.cookieName), sessionCookieDomain(req, config));
    // The member session the browser had when this request last sent it to the sign-in page (null: none).
    const before = details.result?.[SESSION_BEFORE] as string | null | undefined;
    const signedInSince = signedIn !== null && before !== undefined && signedIn.sessionId !== before;
    if (signedIn && details.lastSubmission?.login) {
      // The provider asks again after the sign-in it was given (a hinted or essential fact it cannot have):
      // signing in once more would not change it.
      logger.info('oidc sign-in', { outcome: 'login-required', reasons: prompt.reasons, requestId: requestIdOf(req) });
      return finish(req, res, provider, { error: 'login_required', error_description: 'the member signed in cannot be taken for this request' });
    }
    const maxAge = params['max_age'] === undefined ? undefined : Number(params['max_age']);
    // A fresh sign-in (prompt=login, or a max_age shorter than the time since the member signed in) is asked of a
    // member signed in before this request.
    const again = signedIn !== null && !signedInSince && (prompt.reasons.includes('login_prompt') || (maxAge !== undefined && signedIn.ageSeconds > maxAge));
    if (!signedIn || again) {
      // The sign-in page brings the member back here, signed in; asked to, it shows its form to a member signed in.
      await provider.interactionResult(req, res, { [SESSION_BEFORE]: signedIn?.sessionId ?? null }, { mergeWithLastSubmission: false });
      if (again) logger.info('oidc sign-in', { outcome: 'sign-in-again', reasons: prompt.reasons, requestId: requestIdOf(req) });
      const query = `ReturnUrl=${encodeURIComponent(interactionPath(uid))}${again ? '&prompt=login' : ''}`;
      return res.redirect(303, `${config.signin.loginPath}?${query}`);
    }
    logger.info('oidc sign-in', { outcome: 'signed-in', member: signedIn.member.id, requestId: requestIdOf(req) });
    const login = { accountId: signedIn.member.id, ts: Math.floor(signedIn.signedInAt / 1000), remember: false, ...authenticationMethods(signedIn) };
    // The session the member signed in again in place of is ended once the OpenID session moved to the new one.
    return finish(req, res, provider, signedInSince && typeof before === 'string' ? { login, [REPLACED_SESSION]: before } : { login });
  });

  router.post(`${INTERACTION_PREFIX}/:uid/consent`, bodyParser.urlencoded({ extended: false, limit: FORM_LIMIT }), async (req, res) => {
    const provider = await deps.provider();
    const details = await detailsOf(req, res, provider);
    const origin = req.headers.origin;
    if (!details || details.prompt.name !== 'consent' || (origin !== undefined && origin !== new URL(provider.issuer).origin)) return expired(req, res);
    const allowed = (req.body as Record<string, unknown> | undefined)?.['decision'] === 'allow';
    logger.info('oidc consent', { outcome: allowed ? 'allowed' : 'denied', client: details.params['client_id'], requestId: requestIdOf(req) });
    if (!allowed) {
      const client = await provider.Client.find(String(details.params['client_id']));
      const via = client?.clientName ?? String(details.params['client_id']);
      services.events.record({ type: 'oidc-signin', memberId: details.session?.accountId, clientAddress: clientAddress(req, config.trustProxy), via, requestId: requestIdOf(req), outcome: 'refused', reason: 'consent-denied' });
      return finish(req, res, provider, { error: 'access_denied', error_description: 'the member did not allow it' });
    }
    return finish(req, res, provider, { consent: { grantId: await grantAll(provider, details) } });
  });

  return router;
}

/** Grants what the interaction asks: its scopes and claims, to the existing grant or a new one. */
async function grantAll(provider: Provider, details: Awaited<ReturnType<Provider['interactionDetails']>>): Promise<string> {
  const { prompt, params, session, grantId } = details;
  const existing = grantId ? await provider.Grant.find(grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId: session?.accountId ?? '', clientId: String(params['client_id']) });
  const scopes = prompt.details['missingOIDCScope'] as string[] | undefined;
  const claims = prompt.details['missingOIDCClaims'] as string[] | undefined;
  if (scopes) grant.addOIDCScope(scopes.join(' '));
  if (claims) grant.addOIDCClaims(claims);
  return grant.save();
}
