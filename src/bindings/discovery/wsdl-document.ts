import { readFileSync } from 'node:fs';
import type { Config } from '../../config/config.js';
import { BINDINGS } from './bindings.js';
import type { EndpointDocument } from './endpoint-document.js';
import { escapeMarkup } from './escape.js';

// src/bindings/discovery/ and dist/bindings/discovery/ are both three levels below the package root.
const AUTHORED_WSDL = readFileSync(new URL('../../../wsdl/Authentication.wsdl', import.meta.url), 'utf8');

/** What wsdl/Authentication.wsdl is written with: ASMX's default namespace and service name, a placeholder address. */
const AUTHORED_NAMESPACE = 'http://tempuri.org/';
const AUTHORED_SERVICE_NAME = 'Authentication';
const AUTHORED_ADDRESS = 'http://localhost/Authentication.asmx';

/** The served WSDL: bindings and names substituted once, then split at the four addresses. */
export function createWsdlDocument(config: Config): EndpointDocument {
  let wsdl = AUTHORED_WSDL;
  for (const binding of BINDINGS) {
    if (config.bindings[binding.key]) continue;
    const name = AUTHORED_SERVICE_NAME + binding.suffix;
    wsdl = dropElement(dropElement(wsdl, 'binding', name), 'port', name);
  }
  const namespace = escapeMarkup(config.soapNamespace);
  const serviceName = escapeMarkup(config.serviceName);
  // Split before substituting, so a namespace that happens to contain the placeholder address stays intact.
  const parts = wsdl.split(AUTHORED_ADDRESS).map((part) =>
    part
      .split(AUTHORED_NAMESPACE)
      .join(namespace)
      .replace(new RegExp(`(name="|tns:)${AUTHORED_SERVICE_NAME}`, 'g'), (_, lead: string) => lead + serviceName),
  );
  return { render: (endpoint) => parts.join(escapeMarkup(endpoint)) };
}

/** Removes the element's lines, as ASMX leaves out a protocol that web.config removes. */
function dropElement(wsdl: string, element: 'binding' | 'port', name: string): string {
  const open = wsdl.indexOf(`<wsdl:${element} name="${name}" `);
  const close = `</wsdl:${element}>`;
  const end = wsdl.indexOf(close, open);
  if (open < 0 || end < 0) throw new Error(`wsdl/Authentication.wsdl has no <wsdl:${element} name="${name}">`);
  return wsdl.slice(0, wsdl.lastIndexOf('\n', open)) + wsdl.slice(end + close.length);
}
