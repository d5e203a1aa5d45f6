import { SaxesParser, type SaxesTagNS } from 'saxes';

/**
 * The bounds of a SAML message or metadata document read from outside. A service provider's AuthnRequest or
 * LogoutRequest holds tens of elements (with its signature, about 20); metadata a few hundred. Beyond these a
 * document is refused before any other parser, the signature check included, sees it.
 */
export interface XmlBounds {
  /** Characters of the document. */
  maxLength: number;
  maxDepth: number;
  maxElements: number;
  /** Attributes of one element, namespace declarations included. */
  maxAttributes: number;
  /** Attributes in the whole document, namespace declarations included. */
  maxDocumentAttributes: number;
}

/** The bounds of a protocol message: a request or response of a service provider. */
export const MESSAGE_BOUNDS: XmlBounds = { maxLength: 64 * 1024, maxDepth: 24, maxElements: 256, maxAttributes: 32, maxDocumentAttributes: 512 };

/** The bounds of a service provider's metadata: several certificates and endpoints, and organisation details. */
export const METADATA_BOUNDS: XmlBounds = { maxLength: 512 * 1024, maxDepth: 32, maxElements: 4096, maxAttributes: 64, maxDocumentAttributes: 8192 };

const MAX_NAME_LENGTH = 256;

/** The attributes XML Signature references resolve (xml-crypto's idAttributes): one value may name one element only. */
const ID_ATTRIBUTES = new Set(['ID', 'Id', 'id']);

/** A document as the guard saw it: its root element, or why it was refused. */
export type GuardedXml = { ok: true; root: { local: string; ns: string } } | { ok: false; reason: string };

class Refused extends Error {}

/**
 * Reads the document once with a strict, namespace-aware parser, and refuses what a SAML message never needs and
 * attacks use: a DTD (so no entity is ever expanded), comments and processing instructions (a comment splits a
 * NameID's text, which a canonicalised signature does not cover), an ID value held by two elements (a signature
 * reference must name one element), malformed XML, and documents past the bounds. Costs one linear pass.
 */
export function guardXml(xml: string, bounds: XmlBounds): GuardedXml {
  if (xml.length > bounds.maxLength) return { ok: false, reason: `longer than ${bounds.maxLength} characters` };
  const parser = new SaxesParser({ xmlns: true });
  let root: { local: string; ns: string } | undefined;
  let depth = 0;
  let elements = 0;
  let attributes = 0;
  let documentAttributes = 0;
  const ids = new Set<string>();
  const refuse = (reason: string): never => {
    throw new Refused(reason);
  };
  parser.on('error', (error) => refuse(`not well-formed XML (${error.message.replace(/^\d+:\d+: /, '')})`));
  parser.on('doctype', () => refuse('a DTD'));
  parser.on('comment', () => refuse('a comment'));
  parser.on('processinginstruction', () => refuse('a processing instruction'));
  parser.on('opentagstart', (tag) => {
    attributes = 0;
    elements += 1;
    if (depth >= bounds.maxDepth) refuse(`elements nested deeper than ${bounds.maxDepth}`);
    if (elements > bounds.maxElements) refuse(`more than ${bounds.maxElements} elements`);
    if (tag.name.length > MAX_NAME_LENGTH) refuse(`a name longer than ${MAX_NAME_LENGTH} characters`);
  });
  parser.on('attribute', (attribute) => {
    attributes += 1;
    documentAttributes += 1;
    if (attributes > bounds.maxAttributes) refuse(`an element with more than ${bounds.maxAttributes} attributes`);
    if (documentAttributes > bounds.maxDocumentAttributes) refuse(`more than ${bounds.maxDocumentAttributes} attributes`);
    if (attribute.name.length > MAX_NAME_LENGTH) refuse(`a name longer than ${MAX_NAME_LENGTH} characters`);
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    depth += 1;
    root ??= { local: tag.local, ns: tag.uri };
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.uri !== '' || !ID_ATTRIBUTES.has(attribute.local)) continue;
      if (ids.has(attribute.value)) refuse('an ID held by two elements');
      ids.add(attribute.value);
    }
  });
  parser.on('closetag', () => {
    depth -= 1;
  });
  try {
    parser.write(xml).close();
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.message };
    throw error;
  }
  return root === undefined ? { ok: false, reason: 'no root element' } : { ok: true, root };
}
