import type { IncomingMessage } from 'node:http';
import type { Logger } from '../log/logger.js';
import type { Outcome } from '../service/authentication.js';
import type { OperationName } from '../service/wsdl-types.js';
import { requestIdOf } from '../web/request-id.js';
import { ERRORS, type AnsweredCode, type ErrorCode, type ErrorOutcome, type FaultCode } from './errors/catalogue.js';
import type { CallAnswer } from './operations.js';
import { inBandError } from './result/in-band-errors.js';

export type BindingName = 'soap11' | 'soap12' | 'httpget' | 'httppost';

/**
 * How a call ended; never carries a secret. `outcome`: the operation's answer (in-band errors included);
 * `refused`: the request never reached an operation (the error it was answered with); `fault`: the operation
 * ended in a fault. The errors' words come from their entries in the catalogue (src/bindings/errors/catalogue.ts).
 */
export type CallResult = { outcome: Outcome } | { refused: AnsweredCode } | { fault: FaultCode; retryAfterSeconds?: number; error?: unknown };

/** The log's words for the answers that are not errors. */
type AnswerWord = 'signed-in' | 'verified' | 'session-ended';

type Underscored<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}_${Underscored<Tail>}` : S;

/** How a call ended, for metrics: the log's word without its detail, with _ for - (a few fixed values). */
export type CallOutcomeKind = Underscored<AnswerWord | ErrorOutcome>;

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
    /** The operation once it is known, also when the call was then refused; undefined when none was chosen. */
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
  return { fault: code, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }), ...(answer.error === undefined ? {} : { error: answer.error }) };
}

/** The log line's outcome (stable: operators alert on it) and the metrics label, which is that word's. */
interface Ending {
  line: string;
  kind: CallOutcomeKind;
}

const ending = <W extends AnswerWord | ErrorOutcome>(word: W, line: string = word): Ending => ({ line, kind: word.replaceAll('-', '_') as Underscored<W> });

const ANSWERS = { signedIn: ending('signed-in'), verified: ending('verified'), sessionEnded: ending('session-ended') };

/** Each error's ending, from its entry: a refusal is logged with its code (refused:<CODE>). */
const ERROR_ENDINGS = Object.fromEntries(
  Object.entries(ERRORS).map(([code, { outcome }]) => [code, ending(outcome, outcome === 'refused' ? `refused:${code}` : outcome)]),
) as Record<ErrorCode, Ending>;

/** An operation's answer: an in-band error's entry, with the refusal's reason when it has one (not-signed-in:<reason>). */
function answerEnding(outcome: Outcome): Ending {
  if (outcome.kind === 'member') return outcome.session ? ANSWERS.signedIn : ANSWERS.verified;
  if (outcome.kind === 'session-ended') return ANSWERS.sessionEnded;
  const { line, kind } = ERROR_ENDINGS[inBandError(outcome).code];
  return 'reason' in outcome.refusal ? { line: `${line}:${outcome.refusal.reason}`, kind } : { line, kind };
}

function endingOf(result: CallResult): Ending {
  if ('outcome' in result) return answerEnding(result.outcome);
  return ERROR_ENDINGS['refused' in result ? result.refused : result.fault];
}

/**
 * One line per call: binding, operation, caller name, outcome, latency and client address. Every binding
 * reports its calls here, so this is also the one place they are counted in the metrics.
 */
export function createCallLogger(logger: Logger, metrics?: CallMetrics): CallLogger {
  return ({ req, client, binding, operation, startedAt, status, result }) => {
    const elapsedMicros = Number((process.hrtime.bigint() - startedAt) / 1000n);
    const { line: outcomeWords, kind } = endingOf(result);
    metrics?.call({ binding, operation, outcome: kind, seconds: elapsedMicros / 1e6 });
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
      line.outcome = outcomeWords;
      if (outcome.kind !== 'refused') line.member = outcome.member.id;
      if (outcome.kind === 'refused' && 'retryAfterSeconds' in outcome.refusal) line.retryAfterSeconds = outcome.refusal.retryAfterSeconds;
    } else {
      line.outcome = outcomeWords;
      if ('retryAfterSeconds' in result && result.retryAfterSeconds !== undefined) line.retryAfterSeconds = result.retryAfterSeconds;
    }
    if (kind === 'error') {
      const error = 'error' in result ? result.error : undefined;
      line.error = error instanceof Error ? error.message : String(error);
      logger.error('call', line);
      return;
    }
    logger.info('call', line);
  };
}
