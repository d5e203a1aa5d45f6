import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../../config/config.js';
import { sendAsmx } from '../asmx-response.js';
import type { BindingName, CallLogger, CallResult } from '../call-log.js';
import { errorPage } from '../error-page.js';
import { clientAddress } from '../client-address.js';
import { callFault, INTERNAL_ERROR_TEXT, type Invoke } from '../invoke.js';
import type { ResultRenderer } from '../result/formats.js';
import { decodeXmlBody } from './decode-body.js';
import { readEnvelope, type EnvelopeReading } from './envelope-reader.js';
import { envelope, faultXml } from './faults.js';
import { SoapFaultError, type NodeSoapStack } from './node-soap.js';
import { soapOperations } from './operations.js';
import { SOAP_CONTENT_TYPE, type SoapVersion } from './protocol.js';
import { requestShape, routeSoapRequest, type ProtocolRefusal } from './routing.js';

export interface SoapBindingDeps {
  config: Config;
  stack: NodeSoapStack;
  invoke: Invoke;
  render: ResultRenderer;
  logCall: CallLogger;
}


const bindingOf = (version: SoapVersion): BindingName => (version === '1.1' ? 'soap11' : 'soap12');

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

/** POST to the .asmx itself: SOAP 1.1 and 1.2, told apart and routed by ASMX's rules. */
export function createSoapBinding(deps: SoapBindingDeps) {
  const operations = soapOperations(deps.config.soapNamespace);
  const enabled: Record<SoapVersion, boolean> = { '1.1': deps.config.bindings.soap11, '1.2': deps.config.bindings.soap12 };

  return async function handleSoap(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const startedAt = process.hrtime.bigint();
    const client = clientAddress(req, deps.config.trustProxy);
    const finish = (binding: BindingName | 'soap', operation: string | undefined, status: number, result: CallResult) =>
      deps.logCall({ req, client, binding, operation, startedAt, status, result });

    const shape = requestShape(req.headers);
    if (!shape) {
      sendAsmx(res, { status: 415, contentType: SOAP_CONTENT_TYPE['1.1'], body: '' });
      return finish('soap', undefined, 415, { refused: 'no-content-type' });
    }
    const xml = decodeXmlBody(body, shape.charset);
    const reading = xml === null ? undecodable() : readEnvelope(xml);
    const soapAction = req.headers.soapaction;
    const route = routeSoapRequest(shape, Array.isArray(soapAction) ? soapAction[0] : soapAction, reading, operations);

    if (!route.ok) {
      sendAsmx(res, refusalResponse(route.refusal));
      return finish(bindingOf(route.refusal.version), undefined, route.refusal.kind === 'fault' ? 500 : route.refusal.status, {
        refused: route.refusal.kind === 'fault' ? route.refusal.role : String(route.refusal.status),
      });
    }
    const { version, operation } = route;
    if (!enabled[version]) {
      sendAsmx(res, errorPage(500, 'Request format is unrecognized.'));
      return finish(bindingOf(version), operation, 500, { refused: 'binding-disabled' });
    }

    // Set by the operation, which node-soap calls back; typed so that it is not narrowed to this first value.
    let result = { refused: 'not-invoked' } as CallResult;
    const reply = await deps.stack.process(version, operation, route.parameters, {
      invoke: async (op, parameters) => {
        try {
          const outcome = await deps.invoke(op, parameters, { clientAddress: client });
          result = { outcome };
          return deps.render(outcome);
        } catch (error) {
          // A service fault (a wrong password, a throttled address) is a Server/Receiver fault with its text,
          // status 500, as ASMX answers an exception; anything else is logged and answered without details.
          const fault = callFault(error);
          if (fault) {
            const { message, ...logged } = fault;
            result = logged;
            throw new SoapFaultError(message);
          }
          result = { error };
          throw new SoapFaultError(INTERNAL_ERROR_TEXT);
        }
      },
    });
    sendAsmx(res, {
      status: reply.status,
      contentType: SOAP_CONTENT_TYPE[version],
      body: reply.body,
      cacheControl: 'private, max-age=0',
      ...('fault' in result && result.fault === 'throttled' ? { retryAfterSeconds: result.retryAfterSeconds } : {}),
    });
    finish(bindingOf(version), operation, reply.status, result);
  };
}

function refusalResponse(refusal: ProtocolRefusal) {
  const contentType = SOAP_CONTENT_TYPE[refusal.version];
  if (refusal.kind === 'empty') return { status: refusal.status, contentType, body: '' };
  return {
    status: 500,
    contentType,
    body: envelope(refusal.version, faultXml(refusal.version, refusal.role, refusal.text, refusal.detail)),
    cacheControl: refusal.routed ? ('private, max-age=0' as const) : ('private' as const),
  };
}
