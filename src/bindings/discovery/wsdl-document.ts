import { readFileSync } from 'node:fs';
import type { Config } from '../../config/config.js';
import { OPERATION_PARAMETERS, type OperationName } from '../../service/wsdl-types.js';
import { BINDINGS } from './bindings.js';
import type { EndpointDocument } from './endpoint-document.js';
import { escapeMarkup } from './escape.js';

// src/bindings/discovery/ and dist/bindings/discovery/ are both three levels below the package root.
const AUTHORED_WSDL = readFileSync(new URL('../../../wsdl/Authentication.wsdl', import.meta.url), 'utf8');

/** What wsdl/Authentication.wsdl is written with: ASMX's default namespace and service name, a placeholder address. */
const AUTHORED_NAMESPACE = 'http://tempuri.org/';
const AUTHORED_NAME = 'Authentication';
const AUTHORED_ADDRESS = 'http://localhost/Authentication.asmx';

/** The messages ASMX declares for each operation, by the suffix it appends to the operation's name. */
const MESSAGE_SUFFIXES = ['SoapIn', 'SoapOut', 'HttpGetIn', 'HttpGetOut', 'HttpPostIn', 'HttpPostOut'];

export type WsdlSettings = Pick<Config, 'bindings' | 'operations' | 'operationParameters' | 'soapNamespace' | 'wsdlNames' | 'documentation'>;

/**
 * The served WSDL, prepared once: the authored contract without the operations and bindings this deployment
 * does not offer (as ASMX leaves out what a service lacks or web.config removes), with its documentation,
 * names and namespace, then split at the four addresses.
 */
export function createWsdlDocument(settings: WsdlSettings): EndpointDocument {
  const offered = new Set<string>(settings.operations);
  const dropped = (Object.keys(OPERATION_PARAMETERS) as OperationName[]).filter((operation) => !offered.has(operation));
  const droppedStarts = new Set([
    ...dropped.flatMap(operationElements),
    ...undeclaredParameters(settings).flatMap((name) => [
      `<s:element minOccurs="0" maxOccurs="1" name="${name}" type="s:string" />`,
      `<wsdl:part name="${name}" type="s:string" />`,
    ]),
    ...BINDINGS.filter((binding) => !settings.bindings[binding.key]).flatMap((binding) => [
      `<wsdl:binding name="${AUTHORED_NAME}${binding.suffix}" `,
      `<wsdl:port name="${AUTHORED_NAME}${binding.suffix}" `,
    ]),
  ]);
  const lines = dropBlocks(AUTHORED_WSDL.split('\n'), (start) => [...droppedStarts].some((prefix) => start.startsWith(prefix)));
  const wsdl = named(documented(lines, settings.documentation).join('\n'), settings.wsdlNames);
  const namespace = escapeMarkup(settings.soapNamespace);
  // Split before substituting, so a namespace that happens to contain the placeholder address stays intact.
  const parts = wsdl.split(AUTHORED_ADDRESS).map((part) => part.split(AUTHORED_NAMESPACE).join(namespace));
  return { render: (endpoint) => parts.join(escapeMarkup(endpoint)) };
}

/**
 * The parameters of the WSDL that the endpoint does not declare. Only authenticationToken can be left out,
 * and from every operation at once, so its elements can be dropped wherever they are.
 */
function undeclaredParameters(settings: WsdlSettings): string[] {
  const declared = new Set(Object.values(settings.operationParameters).flat());
  return [...new Set(Object.values(OPERATION_PARAMETERS).flat())].filter((name) => !declared.has(name));
}

/** The start tags of the elements that belong to one operation only: its schema elements, its messages, its operations. */
function operationElements(operation: OperationName): string[] {
  return [
    `<s:element name="${operation}">`,
    `<s:element name="${operation}Response">`,
    ...MESSAGE_SUFFIXES.map((suffix) => `<wsdl:message name="${operation}${suffix}">`),
    `<wsdl:operation name="${operation}">`,
  ];
}

/**
 * Removes each element whose start tag begins a line that `drop` picks: that line alone when the element is
 * empty, else through its end tag, which the authored WSDL writes on a line of its own at the same indentation.
 */
function dropBlocks(lines: readonly string[], drop: (start: string) => boolean): string[] {
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const start = line.trimStart();
    if (!drop(start)) {
      kept.push(line);
      continue;
    }
    if (start.endsWith('/>')) continue;
    const end = lines.indexOf(`${line.slice(0, line.length - start.length)}</${/^<([\w:]+)/.exec(start)?.[1]}>`, i + 1);
    if (end < 0) throw new Error(`wsdl/Authentication.wsdl: no end tag on its own line for ${start}`);
    i = end;
  }
  return kept;
}

/** wsdl:documentation as ASMX writes it: first in the service, and first in each operation of each portType. */
function documented(lines: readonly string[], documentation: WsdlSettings['documentation']): string[] {
  const element = (indent: string, text: string) =>
    `${indent}<wsdl:documentation xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">${escapeMarkup(text)}</wsdl:documentation>`;
  let inPortType = false;
  return lines.flatMap((line) => {
    const start = line.trimStart();
    const indent = `${line.slice(0, line.length - start.length)}  `;
    if (start.startsWith('<wsdl:portType ')) inPortType = true;
    if (start.startsWith('</wsdl:portType>')) inPortType = false;
    const operation = inPortType ? /^<wsdl:operation name="(\w+)">/.exec(start)?.[1] : undefined;
    const text = start.startsWith('<wsdl:service ') ? documentation.service : operation && documentation.operations[operation as OperationName];
    return text ? [line, element(indent, text)] : [line];
  });
}

/** The service, its bindings and ports, and its portTypes under the configured names. */
function named(wsdl: string, names: WsdlSettings['wsdlNames']): string {
  const [service, binding, portType] = [names.service, names.binding, names.portType].map(escapeMarkup);
  return wsdl
    .replace(new RegExp(`<wsdl:portType name="${AUTHORED_NAME}(\\w+)">`, 'g'), (_, suffix: string) => `<wsdl:portType name="${portType}${suffix}">`)
    .replace(
      new RegExp(`<wsdl:binding name="${AUTHORED_NAME}(\\w+)" type="tns:${AUTHORED_NAME}(\\w+)">`, 'g'),
      (_, own: string, type: string) => `<wsdl:binding name="${binding}${own}" type="tns:${portType}${type}">`,
    )
    .replace(
      new RegExp(`<wsdl:port name="${AUTHORED_NAME}(\\w+)" binding="tns:${AUTHORED_NAME}(\\w+)">`, 'g'),
      (_, own: string, bound: string) => `<wsdl:port name="${binding}${own}" binding="tns:${binding}${bound}">`,
    )
    .replace(`<wsdl:service name="${AUTHORED_NAME}">`, `<wsdl:service name="${service}">`);
}
