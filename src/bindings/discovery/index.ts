import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../../config/config.js';
import { CONTENT_TYPE, sendAsmx } from '../asmx-response.js';
import { endpointUrl } from '../../web/endpoint-url.js';
import { createDiscoDocument } from './disco.js';
import { createHelpPages } from './help-page.js';
import { createWsdlDocument } from './wsdl-document.js';

export interface Discovery {
  /** Answers a GET on the endpoint path: ?wsdl, ?disco, or the help pages (?op=…). The caller routes. */
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/** ASMX reads the query through a case-insensitive collection: ?WSDL, ?wsdl and ?Wsdl are one key. */
function queryKeys(url: string): Map<string, string> {
  const keys = new Map<string, string>();
  const start = url.indexOf('?');
  if (start < 0) return keys;
  for (const [key, value] of new URLSearchParams(url.slice(start + 1))) {
    const name = key.toLowerCase();
    if (!keys.has(name)) keys.set(name, value);
  }
  return keys;
}

export function createDiscovery(config: Config): Discovery {
  const wsdl = createWsdlDocument(config);
  const disco = createDiscoDocument(config);
  const help = createHelpPages(config);
  return {
    handle(req, res) {
      const query = queryKeys(req.url ?? '');
      const endpoint = endpointUrl(req, config);
      if (query.has('wsdl') || query.has('disco')) {
        const document = query.has('wsdl') ? wsdl : disco;
        sendAsmx(res, { status: 200, contentType: CONTENT_TYPE.xml, cacheControl: 'private, max-age=0', body: document.render(endpoint) });
        return;
      }
      sendAsmx(res, { status: 200, contentType: CONTENT_TYPE.html, cacheControl: 'private', body: help.render(endpoint, query.get('op')) });
    },
  };
}
