import type { IncomingMessage } from 'node:http';
import type { Logger } from '../log/logger.js';
import type { Outcome } from '../service/authentication.js';
import { clientAddress } from './client-address.js';

export type BindingName = 'soap11' | 'soap12' | 'httpget' | 'httppost';

/** How a call ended, in words an operator can grep; never carries a secret. */
export type CallResult = { outcome: Outcome } | { refused: string } | { fault: 'invalid-security-password' } | { error: unknown };

export interface CallLogger {
  (entry: { req: IncomingMessage; binding: BindingName | 'soap'; operation: string | undefined; startedAt: bigint; status: number; result: CallResult }): void;
}

/** One line per call: binding, operation, caller name, outcome, latency and client address. */
export function createCallLogger(logger: Logger, trustProxy: boolean): CallLogger {
  return ({ req, binding, operation, startedAt, status, result }) => {
    const line: Record<string, unknown> = {
      binding,
      operation: operation ?? null,
      status,
      latencyMs: Number((process.hrtime.bigint() - startedAt) / 1000n) / 1000,
      client: clientAddress(req, trustProxy),
    };
    if ('outcome' in result) {
      line.caller = result.outcome.caller;
      line.outcome = result.outcome.signedIn ? 'signed-in' : `not-signed-in:${result.outcome.reason}`;
      if (result.outcome.signedIn) line.member = result.outcome.member.id;
    } else if ('refused' in result) {
      line.outcome = `refused:${result.refused}`;
    } else if ('fault' in result) {
      line.outcome = result.fault;
    } else {
      line.outcome = 'error';
      line.error = result.error instanceof Error ? result.error.message : String(result.error);
      logger.error('call', line);
      return;
    }
    logger.info('call', line);
  };
}
