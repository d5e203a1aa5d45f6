import type { Client } from 'oidc-provider';
import type { Logger } from '../log/logger.js';
import { LOGOUT_RETRY_DELAYS_MS } from '../web/retry-delays.js';

/** How a back-channel logout went, as counted: delivered, tried again after a failure, or given up. */
export type BackchannelOutcome = 'delivered' | 'retried' | 'failed';

/** Where the provider's events are counted; the app hands in src/ops/metrics.ts's. */
export interface OidcMetrics {
  backchannelLogout(outcome: BackchannelOutcome): void;
}

/** A client's logout token, sent once per call; rejects when the client did not take it. */
export type LogoutSend = () => Promise<void>;

/** oidc-provider's client signs and posts its logout token itself (its type declarations leave the method out). */
export function logoutToken(client: Client, accountId: string, sid: string): LogoutSend {
  const sender = client as Client & { backchannelLogout(sub: string, sid: string): Promise<void> };
  return () => sender.backchannelLogout(accountId, sid);
}

/**
 * Back-channel logout tokens, sent to the clients that registered a back-channel logout URI, off the path of
 * the sign-out that ended the session. A failed delivery is tried again after each of the delays, and every
 * attempt is logged and counted. The log names the client and why a delivery failed (an HTTP status, a network
 * error's code), never the token or the URI, which may carry a secret in its query.
 */
export class BackchannelLogouts {
  constructor(
    private readonly logger: Logger,
    private readonly metrics: OidcMetrics | undefined,
    private readonly delaysMs: readonly number[] = LOGOUT_RETRY_DELAYS_MS,
  ) {}

  /** Sends now, then again while it fails. */
  deliver(clientId: string, send: LogoutSend): void {
    this.#attempt(clientId, send, 1);
  }

  /** The first attempt failed elsewhere (the provider's own end-session endpoint): tries again after the first delay. */
  retry(clientId: string, send: LogoutSend, error: unknown): void {
    this.#failed(clientId, send, 1, error);
  }

  #attempt(clientId: string, send: LogoutSend, attempt: number): void {
    send().then(
      () => this.delivered(clientId, attempt),
      (error: unknown) => this.#failed(clientId, send, attempt, error),
    );
  }

  /** Records a delivery (the provider's own included). */
  delivered(clientId: string, attempt = 1): void {
    this.metrics?.backchannelLogout('delivered');
    this.logger.info('oidc back-channel logout', { client: clientId, outcome: 'delivered', attempt });
  }

  #failed(clientId: string, send: LogoutSend, attempt: number, error: unknown): void {
    const delay = this.delaysMs[attempt - 1];
    const outcome: BackchannelOutcome = delay === undefined ? 'failed' : 'retried';
    this.metrics?.backchannelLogout(outcome);
    this.logger.warn('oidc back-channel logout', { client: clientId, outcome, attempt, reason: failureReason(error) });
    if (delay === undefined) return;
    setTimeout(() => this.#attempt(clientId, send, attempt + 1), delay).unref();
  }
}

/** What went wrong, without the URI: the status the client answered, or the network error's code or name. */
function failureReason(error: unknown): string {
  const { response, cause, name } = (error ?? {}) as { response?: { status?: number }; cause?: { code?: string }; name?: string };
  if (response?.status !== undefined) return `status ${response.status}`;
  return cause?.code ?? name ?? 'error';
}
