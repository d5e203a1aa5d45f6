import type { Request, Response } from 'express';
import type { Config } from '../../config/config.js';
import { callSender } from '../../web/call-sender.js';
import { clientAddress } from '../../web/client-address.js';
import { sessionCookieDomain } from '../../web/endpoint-url.js';
import { requestIdOf } from '../../web/request-id.js';
import { errorResponse } from '../asmx-errors.js';
import { sendAsmx } from '../asmx-response.js';
import { callResult, type BindingName, type CallLogger, type CallResult } from '../call-log.js';
import type { NamedCall } from '../route-refusals.js';
import { decodeXmlBody } from './decode-body.js';
import { readEnvelope, type EnvelopeReading } from './envelope-reader.js';
import type { SoapStack } from './node-soap.js';
import type { SoapOperations } from './operations.js';
import type { SoapVersion } from './protocol.js';
import { headerRoute, requestShape, routeSoapRequest } from './routing.js';

export interface SoapBindingDeps {
  config: Config;
  stack: SoapStack;
  /** The operations offered, as SOAP names them. */
  operations: SoapOperations;
  logCall: CallLogger;
}

const bindingOf = (version: SoapVersion): BindingName => (version === '1.1' ? 'soap11' : 'soap12');

const soapActionOf = (req: Request) => {
  const soapAction = req.headers.soapaction;
  return Array.isArray(soapAction) ? soapAction[0] : soapAction;
};

/** The call a POST to the endpoint names by its headers alone (SOAPAction, the action parameter), if any. */
export function namedSoapCall(req: Request, operations: SoapOperations): NamedCall | undefined {
  if (req.method !== 'POST') return undefined;
  const route = headerRoute(requestShape(req.headers), soapActionOf(req), operations);
  return route && { binding: bindingOf(route.version), operation: route.operation };
}

/** A body that cannot even be decoded fails where the first character is read. */
const undecodable = (): EnvelopeReading => ({
  root: null,
  hasBody: false,
  operation: null,
  parameters: [],
  mustUnderstand: [],
  routingError: 'Invalid character in the given encoding. Line 1, position 1.',
  readingError: true,
});

/**
 * POST to the .asmx itself, its body read raw by body-parser: SOAP 1.1 and 1.2, read once by the strict
 * envelope reader, told apart and routed by ASMX's rules, then answered by the SOAP stack (node-soap.ts),
 * which calls the operation table and writes the reply.
 */
export function createSoapBinding(deps: SoapBindingDeps) {
  const { operations } = deps;
  const enabled: Record<SoapVersion, boolean> = { '1.1': deps.config.bindings.soap11, '1.2': deps.config.bindings.soap12 };

  return async function handleSoap(req: Request, res: Response): Promise<void> {
    const startedAt = process.hrtime.bigint();
    const client = clientAddress(req, deps.config.trustProxy);
    const finish = (binding: BindingName | 'soap', operation: string | undefined, status: number, result: CallResult) =>
      deps.logCall({ req, client, binding, operation, startedAt, status, result });

    const shape = requestShape(req.headers);
    if (!shape) {
      // The version cannot be told without a Content-Type; the operation, when SOAPAction names one, can.
      sendAsmx(res, errorResponse('soap', { code: 'NO_CONTENT_TYPE' }));
      return finish('soap', headerRoute(null, soapActionOf(req), operations)?.operation, 415, { refused: 'NO_CONTENT_TYPE' });
    }
    const body: unknown = req.body;
    const xml = decodeXmlBody(Buffer.isBuffer(body) ? body : Buffer.alloc(0), shape.charset);
    const reading = xml === null ? undecodable() : readEnvelope(xml);
    const route = routeSoapRequest(shape, soapActionOf(req), reading, operations);

    if (!route.ok) {
      const { error, version, operation } = route.refusal;
      const response = errorResponse('soap', error, { version, routed: operation !== undefined });
      sendAsmx(res, response);
      return finish(bindingOf(version), operation, response.status, { refused: error.code });
    }
    const { version, operation } = route;
    if (!enabled[version]) {
      sendAsmx(res, errorResponse('soap', { code: 'SOAP_DISABLED' }));
      return finish(bindingOf(version), operation, 500, { refused: 'SOAP_DISABLED' });
    }

    const context = { clientAddress: client, cookieDomain: () => sessionCookieDomain(req, deps.config), requestId: requestIdOf(req), sender: () => callSender(req) };
    const { response, answer } = await deps.stack.reply(route, context);
    sendAsmx(res, response);
    finish(bindingOf(version), operation, response.status, callResult(answer));
  };
}
