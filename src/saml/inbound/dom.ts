import { DOMParser } from '@xmldom/xmldom';
import { refuse } from './refusal.js';

export const SAMLP_NS = 'urn:oasis:names:tc:SAML:2.0:protocol';
export const SAML_NS = 'urn:oasis:names:tc:SAML:2.0:assertion';
export const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';

/** The root element of a document guardXml accepted (or of a canonical form of one): xmldom's complaints are refusals. */
export function parseRoot(xml: string): Element {
  const fail = () => refuse('xml', 'not well-formed XML');
  const doc = new DOMParser({ errorHandler: { warning: fail, error: fail, fatalError: fail } }).parseFromString(xml, 'text/xml');
  return doc.documentElement ?? fail();
}

/** The element children of parent with this namespace and local name, in document order. */
export function childElements(parent: Element, ns: string, local: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === node.ELEMENT_NODE && (node as Element).namespaceURI === ns && (node as Element).localName === local) found.push(node as Element);
  }
  return found;
}

/** The one child of this name, or undefined; two are a refusal (SAML's schema allows one, and two would be read two ways). */
export function optionalChild(parent: Element, ns: string, local: string): Element | undefined {
  const found = childElements(parent, ns, local);
  if (found.length > 1) refuse('message', `${parent.localName} with more than one ${local}`);
  return found[0];
}

export function requiredChild(parent: Element, ns: string, local: string): Element {
  return optionalChild(parent, ns, local) ?? refuse('message', `${parent.localName} without ${local}`);
}

/** The text of an element that holds only text (a split text, such as a child element would make, is refused). */
export function textOf(element: Element): string {
  for (let node = element.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === node.ELEMENT_NODE) refuse('message', `${element.localName} holding an element`);
  }
  return element.textContent ?? '';
}

/** An attribute without a namespace, or undefined when absent. */
export function attribute(element: Element, name: string): string | undefined {
  return element.getAttributeNode(name)?.value ?? undefined;
}

export function requiredAttribute(element: Element, name: string): string {
  const value = attribute(element, name);
  if (value === undefined || value === '') refuse('message', `${element.localName} without ${name}`);
  return value;
}
