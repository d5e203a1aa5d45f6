import type { IncomingMessage } from 'node:http';
import type { Logger } from '../log/logger.js';
import { requestIdOf } from '../log/request-id.js';
import type { Outcome } from '../service/authentication.js';

export type BindingName = 'soap11' | 'soap12' | 'httpget' | 'httppost';

/** A call the service refused with a fault of its own: a wrong security password, or a throttled address. */
export type CallFault = { fault: 'invalid-security-password' } | { fault: 'throttled'; retryAfterSeconds: number };

/** How a call ended, in words an operator can grep; never carries a secret. */
export type CallResult = { outcome: Outcome } | { refused: string } | CallFault | { error: unknown };

/** How a call ended, for metrics: a few fixed values (the log line has the details). */
export type CallOutcomeKind = 'signed_in' | 'not_signed_in' | 'invalid_security_password' | 'throttled' | 'refused' | 'error';

/** Where calls are counted besides the log (src/ops/metrics.ts); the bindings know nothing of it. */
export interface CallMetrics {
  call(entry: { binding: BindingName | 'soap'; operation: string | undefined; outcome: CallOutcomeKind; seconds: number }): void;
}

export interface CallLogger {
  (entry: {
    req: IncomingMessage;
    /** The client's address, as the binding read it once for the call (src/bindings/client-address.ts). */
    client: string;
    binding: BindingName | 'soap';
    operation: string | undefined;
    startedAt: bigint;
    status: number;
    result: CallResult;
  }): void;
}

/**
 * One line per call: binding, operation, caller name, outcome, latency and client address. Every binding
 * reports its calls here, so this is also the one place they are counted in the metrics.
 */
export function createCallLogger(logger: Logger, metrics?: CallMetrics): CallLogger {
  return ({ req, client, binding, operation, startedAt, status, result }) => {
    const elapsedMicros = Number((process.hrtime.bigint() - startedAt) / 1000n);
    metrics?.call({ binding, operation, outcome: outcomeKind(result), seconds: elapsedMicros / 1e6 });
    const line: Record<string, unknown> = {
      binding,
      operation: operation ?? null,
      status,
      latencyMs: elapsedMicros / 1000,
      client,
      requestId: requestIdOf(req),
    };
    if ('outcome' in result) {
      line.caller = result.outcome.caller;
      line.outcome = result.outcome.signedIn ? 'signed-in' : `not-signed-in:${result.outcome.reason}`;
      if (result.outcome.signedIn) line.member = result.outcome.member.id;
    } else if ('refused' in result) {
      line.outcome = `refused:${result.refused}`;
    } else if ('fault' in result) {
      line.outcome = result.fault;
      if (result.fault === 'throttled') line.retryAfterSeconds = result.retryAfterSeconds;
    } else {
      line.outcome = 'error';
      line.error = result.error instanceof Error ? result.error.message : String(result.error);
      logger.error('call', line);
      return;
    }
    logger.info('call', line);
  };
}

function outcomeKind(result: CallResult): CallOutcomeKind {
  if ('outcome' in result) return result.outcome.signedIn ? 'signed_in' : 'not_signed_in';
  if ('refused' in result) return 'refused';
  if ('fault' in result) return result.fault === 'throttled' ? 'throttled' : 'invalid_security_password';
  return 'error';
}
