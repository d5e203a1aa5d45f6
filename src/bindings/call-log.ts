import type { IncomingMessage } from 'node:http';
import type { Logger } from '../log/logger.js';
import type { Outcome, Refusal } from '../service/authentication.js';
import type { OperationName } from '../service/wsdl-types.js';
import { requestIdOf } from '../web/request-id.js';
import type { AsmxErrorCode } from './asmx-errors.js';
import type { CallAnswer, CallFaultCode } from './operations.js';

export type BindingName = 'soap11' | 'soap12' | 'httpget' | 'httppost';

/**
 * How a call ended, in words an operator can grep; never carries a secret. `refused`: the request never
 * reached an operation (the error it was answered with); `fault`: the operation ended in a fault.
 */
export type CallResult = { outcome: Outcome } | { refused: AsmxErrorCode } | { fault: CallFaultCode; retryAfterSeconds?: number; error?: unknown };

/** How a call ended, for metrics: a few fixed values (the log line has the details). */
export type CallOutcomeKind =
  | 'signed_in'
  | 'verified'
  | 'session_ended'
  | 'not_signed_in'
  | 'invalid_credentials'
  | 'locked'
  | 'second_factor_required'
  | 'invalid_security_password'
  | 'throttled'
  | 'refused'
  | 'error';

/** Where calls are counted besides the log; the app hands in src/ops/metrics.ts's. */
export interface CallMetrics {
  call(entry: { binding: BindingName | 'soap'; operation: string | undefined; outcome: CallOutcomeKind; seconds: number }): void;
}

export interface CallLogger {
  (entry: {
    req: IncomingMessage;
    /** The client's address, as the binding read it once for the call (src/web/client-address.ts). */
    client: string;
    binding: BindingName | 'soap';
    operation: string | undefined;
    startedAt: bigint;
    status: number;
    result: CallResult;
  }): void;
}

/** What the call log records of an operation's answer. */
export function callResult<K extends OperationName>(answer: CallAnswer<K>): CallResult {
  if (answer.ok) return { outcome: answer.outcome };
  const { code, retryAfterSeconds } = answer.fault;
  return { fault: code, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }), ...(code === 'INTERNAL_ERROR' ? { error: answer.error } : {}) };
}

/** The log's words for the faults (stable: operators alert on them). */
const FAULT_OUTCOMES: Record<CallFaultCode, { line: string; kind: CallOutcomeKind }> = {
  INVALID_SECURITY_PASSWORD: { line: 'invalid-security-password', kind: 'invalid_security_password' },
  CALLER_THROTTLED: { line: 'throttled', kind: 'throttled' },
  INTERNAL_ERROR: { line: 'error', kind: 'error' },
};

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
      const { outcome } = result;
      line.caller = outcome.caller;
      line.outcome = outcomeWords(outcome);
      if (outcome.kind !== 'refused') line.member = outcome.member.id;
      if (outcome.kind === 'refused' && outcome.refusal.kind === 'locked') line.retryAfterSeconds = outcome.refusal.retryAfterSeconds;
    } else if ('refused' in result) {
      line.outcome = `refused:${result.refused}`;
    } else {
      line.outcome = FAULT_OUTCOMES[result.fault].line;
      if (result.retryAfterSeconds !== undefined) line.retryAfterSeconds = result.retryAfterSeconds;
      if (result.fault === 'INTERNAL_ERROR') {
        line.error = result.error instanceof Error ? result.error.message : String(result.error);
        logger.error('call', line);
        return;
      }
    }
    logger.info('call', line);
  };
}

/** The log's words for an operation's answer: signed-in, verified, session-ended, not-signed-in:<reason>, invalid-credentials, locked. */
function outcomeWords(outcome: Outcome): string {
  if (outcome.kind === 'member') return outcome.session ? 'signed-in' : 'verified';
  if (outcome.kind === 'session-ended') return 'session-ended';
  const { refusal } = outcome;
  return refusal.kind === 'not-signed-in' ? `not-signed-in:${refusal.reason}` : refusal.kind;
}

const REFUSAL_KINDS: Readonly<Record<Refusal['kind'], CallOutcomeKind>> = {
  'not-signed-in': 'not_signed_in',
  'invalid-credentials': 'invalid_credentials',
  locked: 'locked',
  'second-factor-required': 'second_factor_required',
};

/** The metrics' value for an operation's answer: the log's word without its reason, with _ for -. */
function answerKind(outcome: Outcome): CallOutcomeKind {
  if (outcome.kind === 'member') return outcome.session ? 'signed_in' : 'verified';
  if (outcome.kind === 'session-ended') return 'session_ended';
  return REFUSAL_KINDS[outcome.refusal.kind];
}

function outcomeKind(result: CallResult): CallOutcomeKind {
  if ('outcome' in result) return answerKind(result.outcome);
  if ('refused' in result) return 'refused';
  return FAULT_OUTCOMES[result.fault].kind;
}
