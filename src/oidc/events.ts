import type { EventEmitter } from 'node:events';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from '../log/logger.js';
import { requestIdOf } from '../web/request-id.js';
import { logoutToken, type BackchannelLogouts } from './backchannel.js';

/** The provider's refusals and failures in the log, by code (never a parameter's value); back-channel logouts counted. */
export function watchEvents(provider: Provider, { logger, backchannel }: { logger: Logger; backchannel: BackchannelLogouts }): void {
  const refused = (ctx: KoaContextWithOIDC, error: { error?: string; error_description?: string }) => {
    const { route, client } = ctx.oidc ?? {};
    logger.info('oidc refused', { route, error: error.error, description: error.error_description, client: client?.clientId, requestId: requestIdOf(ctx.req) });
  };
  const refusals = [
    'authorization.error',
    'grant.error',
    'end_session.error',
    'end_session_confirm.error',
    'introspection.error',
    'revocation.error',
    'userinfo.error',
    'discovery.error',
    'pushed_authorization_request.error',
  ];
  for (const event of refusals) provider.on(event as 'grant.error', refused);
  provider.on('server_error', (ctx: KoaContextWithOIDC, error: Error) => {
    logger.error('oidc failed', { route: ctx.oidc?.route, error: error.message, requestId: requestIdOf(ctx.req) });
  });
  provider.on('backchannel.success', (_ctx, client) => backchannel.delivered(client.clientId));
  provider.on('backchannel.error', (_ctx, error, client, accountId, sid) => backchannel.retry(client.clientId, logoutToken(client, accountId, sid), error));
  // Koa's own event, for an error no route handled (Koa writes it to the console when nobody listens).
  (provider as unknown as EventEmitter).on('error', (error: Error) => logger.error('oidc failed', { error: error.message }));
}
