import type { IncomingMessage, ServerResponse } from 'node:http';
import contentType from 'content-type';
import type { Config } from '../../config/config.js';
import { OPERATION_PARAMETERS, type OperationName } from '../../service/wsdl-types.js';
import { CONTENT_TYPE, sendAsmx, type AsmxResponse } from '../asmx-response.js';
import type { BindingName, CallLogger, CallResult } from '../call-log.js';
import { errorPage } from '../error-page.js';
import { clientAddress } from '../client-address.js';
import { callFault, INTERNAL_ERROR_TEXT, type Invoke } from '../invoke.js';
import type { ResultRenderer } from '../result/formats.js';
import { escapeXmlAttribute, escapeXmlText } from '../xml-text.js';

export interface HttpBindingDeps {
  config: Config;
  invoke: Invoke;
  render: ResultRenderer;
  logCall: CallLogger;
}

const OPERATIONS = Object.keys(OPERATION_PARAMETERS) as OperationName[];
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** ASMX's HTTP GET/POST errors: 500, the bare message and a line end, as text/plain. */
const textError = (message: string, cacheControl: AsmxResponse['cacheControl'] = 'private'): AsmxResponse => ({
  status: 500,
  contentType: CONTENT_TYPE.text,
  body: `${message}\n`,
  cacheControl,
});

/** Request.Form and Request.QueryString: names match case-insensitively; repeated values join with commas. */
function parameterReader(params: URLSearchParams): (name: string) => string | undefined {
  const byName = new Map<string, string[]>();
  for (const [key, value] of params) {
    const lower = key.toLowerCase();
    byName.set(lower, [...(byName.get(lower) ?? []), value]);
  }
  return (name) => byName.get(name.toLowerCase())?.join(',');
}

/**
 * GET and POST to /Authentication.asmx/{Operation}: parameters from the query string (GET) or the form
 * body (POST only), the result as <string> in the service namespace.
 */
export function createHttpBinding(deps: HttpBindingDeps) {
  const ns = escapeXmlAttribute(deps.config.soapNamespace);
  const stringElement = (result: string) => {
    const element = result === '' ? `<string xmlns="${ns}" />` : `<string xmlns="${ns}">${escapeXmlText(result)}</string>`;
    return `<?xml version="1.0" encoding="utf-8"?>\n${element}`;
  };

  /** `methodName` is the path after "/Authentication.asmx/", still percent-encoded. */
  return async function handleHttp(req: IncomingMessage, res: ServerResponse, methodName: string, body: Buffer | undefined): Promise<void> {
    const startedAt = process.hrtime.bigint();
    const binding: BindingName = req.method === 'GET' ? 'httpget' : 'httppost';
    const enabled = binding === 'httpget' ? deps.config.bindings.httpGet : deps.config.bindings.httpPost;
    const client = clientAddress(req, deps.config.trustProxy);
    const reply = (response: AsmxResponse, operation: string | undefined, result: CallResult) => {
      sendAsmx(res, response);
      deps.logCall({ req, client, binding, operation, startedAt, status: response.status, result });
    };
    let name: string;
    try {
      name = decodeURIComponent(methodName);
    } catch {
      name = methodName;
    }
    if (!enabled) {
      return reply(errorPage(500, `Request format is unrecognized for URL unexpectedly ending in '/${name}'.`), undefined, { refused: 'binding-disabled' });
    }
    const operation = OPERATIONS.find((op) => op === name);
    if (!operation) {
      const otherCase = OPERATIONS.find((op) => op.toLowerCase() === name.toLowerCase());
      const message = otherCase
        ? `Invalid method name &#39;${name}&#39;,  method names are case sensitive.   The method name &#39;${otherCase}&#39; with the same name but different casing was found.\nParameter name: methodName`
        : `${name} Web Service method name is not valid.`;
      return reply(textError(message), undefined, { refused: 'unknown-method' });
    }

    let source: URLSearchParams;
    if (binding === 'httpget') {
      const url = req.url ?? '';
      const query = url.indexOf('?');
      source = new URLSearchParams(query === -1 ? '' : url.slice(query + 1));
    } else {
      const header = req.headers['content-type'] ?? '';
      let mediaType = '';
      try {
        mediaType = contentType.parse(header).type;
      } catch {
        mediaType = '';
      }
      if (mediaType !== FORM_TYPE) return reply(textError(`Request format is invalid: ${header}.`), operation, { refused: 'content-type' });
      source = new URLSearchParams((body ?? Buffer.alloc(0)).toString('utf8'));
    }
    const read = parameterReader(source);
    const parameters: Record<string, string | null> = {};
    for (const parameter of OPERATION_PARAMETERS[operation]) {
      const value = read(parameter);
      if (value === undefined) return reply(textError(`Missing parameter: ${parameter}.`), operation, { refused: 'missing-parameter' });
      parameters[parameter] = value;
    }

    try {
      const outcome = await deps.invoke(operation, parameters, { clientAddress: client });
      reply(
        { status: 200, contentType: CONTENT_TYPE.xml, body: stringElement(deps.render(outcome)), cacheControl: 'private, max-age=0' },
        operation,
        { outcome },
      );
    } catch (error) {
      const fault = callFault(error);
      if (fault) {
        const { message, ...logged } = fault;
        const response = textError(message, 'private, max-age=0');
        // ASMX had no throttle: a throttled caller gets 429 with Retry-After, which HTTP clients and proxies know.
        if (logged.fault === 'throttled') return reply({ ...response, status: 429, retryAfterSeconds: logged.retryAfterSeconds }, operation, logged);
        return reply(response, operation, logged);
      }
      reply(textError(INTERNAL_ERROR_TEXT, 'private, max-age=0'), operation, { error });
    }
  };
}
