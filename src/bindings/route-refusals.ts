import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Config } from '../config/config.js';
import { clientAddress } from '../web/client-address.js';
import type { AsmxError, ErrorOf } from './asmx-errors.js';
import type { BindingName, CallLogger } from './call-log.js';
import { answerRefusal, readingRefusal, type Refuse } from './request-errors.js';

/** The binding and the operation a request names before a binding has read it. */
export interface NamedCall {
  binding: BindingName;
  operation: string;
}

export interface RouteRefusals {
  /** Answers the request with the error's ASMX page and records it: see routeRefusals. */
  refuse(req: Request, res: Response, error: AsmxError<ErrorOf<'endpoint'>>, options?: { close?: boolean }): void;
  /** The routes' error handler for their body readers' errors, refused as `refuse` refuses. */
  readingErrors: ErrorRequestHandler;
}

/**
 * Refusals on the endpoint's routes before a binding reads the request (a body too large or unreadable, a JSON
 * POST). A request that names an operation the deployment offers, and so the binding that takes it (`callOf`:
 * the path below the endpoint for HTTP GET and POST, SOAPAction or the action parameter for SOAP), is a refused
 * call of that operation: one line in the call log and one count in asmx_calls_total, as the bindings' own
 * refusals. Any other is a refusal before any binding, recorded by `refuse` (src/bindings/request-errors.ts).
 */
export function routeRefusals(deps: { config: Config; refuse: Refuse; logCall: CallLogger; callOf: (req: Request) => NamedCall | undefined }): RouteRefusals {
  const refuse: RouteRefusals['refuse'] = (req, res, error, options) => {
    const call = deps.callOf(req);
    if (call === undefined) return deps.refuse(req, res, error, options);
    const startedAt = process.hrtime.bigint();
    const status = answerRefusal(req, res, error, options);
    deps.logCall({ req, client: clientAddress(req, deps.config.trustProxy), ...call, startedAt, status, result: { refused: error.code } });
  };
  return {
    refuse,
    readingErrors: (error: { status?: number; type?: string }, req, res, next) => {
      const refusal = readingRefusal(error, res);
      if (refusal === 'drop') return void res.destroy();
      if (refusal === undefined) return next(error);
      refuse(req, res, refusal);
    },
  };
}
