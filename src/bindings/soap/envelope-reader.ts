import { SaxesParser, type SaxesTagNS } from 'saxes';

const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

export interface QName {
  local: string;
  ns: string;
}

export interface BodyChildElement extends QName {
  /** Text content; null for xsi:nil. */
  value: string | null;
  /** Element children make a string parameter unreadable, as for XmlSerializer. */
  hasElementChildren: boolean;
}

/**
 * What ASMX learns from an envelope, in its two phases. Routing reads up to the first element inside the
 * Body; an XML error there is a routing error (a 500 fault when the route depended on it). Everything after
 * that is reading, and an XML error there is a 400 with no body.
 */
export interface EnvelopeReading {
  root: QName | null;
  hasBody: boolean;
  /** The operation element: the first element in the Body, null when the Body is empty. */
  operation: QName | null;
  parameters: BodyChildElement[];
  /** Headers with mustUnderstand set, by local name. */
  mustUnderstand: string[];
  routingError: string | null;
  readingError: boolean;
}

/** .NET's XmlException texts for what the routing phase can meet. */
const DTD_PROHIBITED =
  'For security reasons DTD is prohibited in this XML document. To enable DTD processing set the DtdProcessing property on XmlReaderSettings to Parse and pass the settings into XmlReader.Create method.';

class StopReading extends Error {}

/** Where .NET points for text before the root: the first character that is not white space. */
function positionOfFirstContent(xml: string): string {
  const offset = xml.search(/\S/);
  const before = xml.slice(0, Math.max(offset, 0)).split('\n');
  return `Line ${before.length}, position ${(before.at(-1) ?? '').length + 1}.`;
}

/** Parameters beyond this many are ignored; ASMX reads at most one per declared parameter anyway. */
const MAX_PARAMETERS = 32;

/**
 * Elements nested deeper than this make the document unreadable. An envelope needs four levels (Envelope,
 * Body, operation, parameter) and WS-Security headers a few more; without a bound, the namespace-aware parser
 * resolves each element's namespace through every open element, a cost that grows with the square of the depth.
 */
export const MAX_DEPTH = 64;

/** Elements in one document beyond which it is unreadable: an envelope holds tens, with security headers. */
const MAX_ELEMENTS = 1024;

/** Attributes of one element, namespace declarations included, beyond which the document is unreadable. */
const MAX_ATTRIBUTES = 64;

/**
 * Attributes in one document, namespace declarations included, beyond which it is unreadable: an envelope holds
 * tens (a WS-Security header with its namespace declarations, about a hundred). The parser takes about 1.5 µs
 * an attribute: a 64 KB body of elements with 64 attributes each cost 17 to 20 ms idle and 35 ms under load.
 */
const MAX_DOCUMENT_ATTRIBUTES = 1024;

/** Element and attribute names longer than this make the document unreadable. */
const MAX_NAME_LENGTH = 256;

/**
 * Reads a SOAP envelope with a strict, namespace-aware parser. No DTD is accepted (so no entity is ever
 * expanded) and no prefix is trusted: elements are matched by namespace URI and local name. The parser
 * tracks lines and columns only for a document whose routing failed, whose error text names them: a second
 * reading gives them, and every other document is read once without that per-character work.
 */
export function readEnvelope(xml: string): EnvelopeReading {
  const reading = read(xml, false);
  return reading.routingError === null ? reading : read(xml, true);
}

function read(xml: string, position: boolean): EnvelopeReading {
  const reading: EnvelopeReading = {
    root: null,
    hasBody: false,
    operation: null,
    parameters: [],
    mustUnderstand: [],
    routingError: null,
    readingError: false,
  };
  const parser = new SaxesParser({ xmlns: true, position });
  // Element path below the root: 0 = Envelope, 1 = Header/Body level, 2 = header or operation, 3 = parameter.
  let depth = 0;
  let inHeader = false;
  let inBody = false;
  let routed = false;
  let parameter: BodyChildElement | null = null;
  let sawElement = false;

  const fail = (message: string): never => {
    if (routed) reading.readingError = true;
    else reading.routingError = message;
    throw new StopReading();
  };

  parser.on('error', (error) => {
    if (sawElement) fail(`${error.message.replace(/^\d+:\d+: /, '')} Line ${parser.line}, position ${parser.column}.`);
    if (/root element/.test(error.message)) fail('Root element is missing.');
    fail(`Data at the root level is invalid. ${positionOfFirstContent(xml)}`);
  });
  parser.on('doctype', () => fail(DTD_PROHIBITED));
  const beyond = (limit: string) => fail(`The document has ${limit}. Line ${parser.line}, position ${parser.column}.`);
  let attributes = 0;
  let documentAttributes = 0;
  let elements = 0;
  parser.on('opentagstart', (tag) => {
    attributes = 0;
    elements += 1;
    if (depth >= MAX_DEPTH) beyond(`elements nested deeper than ${MAX_DEPTH}`);
    if (elements > MAX_ELEMENTS) beyond(`more than ${MAX_ELEMENTS} elements`);
    if (tag.name.length > MAX_NAME_LENGTH) beyond(`a name longer than ${MAX_NAME_LENGTH} characters`);
  });
  parser.on('attribute', (attribute) => {
    attributes += 1;
    documentAttributes += 1;
    if (attributes > MAX_ATTRIBUTES) beyond(`an element with more than ${MAX_ATTRIBUTES} attributes`);
    if (documentAttributes > MAX_DOCUMENT_ATTRIBUTES) beyond(`more than ${MAX_DOCUMENT_ATTRIBUTES} attributes`);
    if (attribute.name.length > MAX_NAME_LENGTH) beyond(`a name longer than ${MAX_NAME_LENGTH} characters`);
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    sawElement = true;
    depth += 1;
    const name = { local: tag.local, ns: tag.uri };
    if (depth === 1) {
      reading.root = name;
    } else if (depth === 2) {
      const envelopeNs = reading.root?.ns;
      inHeader = tag.local === 'Header' && tag.uri === envelopeNs;
      inBody = tag.local === 'Body' && tag.uri === envelopeNs && !reading.hasBody;
      if (inBody) reading.hasBody = true;
    } else if (depth === 3 && inHeader) {
      const flag = Object.values(tag.attributes).find((a) => a.local === 'mustUnderstand' && a.uri === reading.root?.ns);
      if (flag && (flag.value.trim() === '1' || flag.value.trim() === 'true')) reading.mustUnderstand.push(tag.local);
    } else if (depth === 3 && inBody && !routed) {
      reading.operation = name;
      routed = true;
    } else if (depth === 4 && inBody && reading.operation && parameter === null && reading.parameters.length < MAX_PARAMETERS) {
      const nil = Object.values(tag.attributes).find((a) => a.local === 'nil' && a.uri === XSI_NS);
      parameter = { ...name, value: nil && ['true', '1'].includes(nil.value.trim()) ? null : '', hasElementChildren: false };
      reading.parameters.push(parameter);
    } else if (depth > 4 && parameter) {
      parameter.hasElementChildren = true;
    }
  });
  const onText = (text: string) => {
    if (parameter && depth === 4 && parameter.value !== null) parameter.value += text;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    if (depth === 4) parameter = null;
    if (depth === 2) {
      // An empty Body routes to no operation, which is a decision too.
      if (inBody) routed = true;
      inHeader = false;
      inBody = false;
    }
    depth -= 1;
  });

  try {
    parser.write(xml).close();
    if (!sawElement) fail('Root element is missing.');
  } catch (error) {
    if (!(error instanceof StopReading)) throw error;
  }
  return reading;
}
