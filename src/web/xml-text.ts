/**
 * XML escaping as ASMX's XmlWriter does it, for the ASMX results and the SAML messages alike. Element text
 * escapes only &, < and > (never quotes: the PHP iBridge client rewrites encoding="UTF-16" in the raw response
 * text). Characters XML 1.0 cannot carry become U+FFFD rather than producing a document no client can parse.
 */
const NOT_XML_CHAR = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const TEXT_SPECIAL = /[&<>]/;
const ATTRIBUTE_SPECIAL = /[&<>"\t\n\r]/;
const ATTRIBUTE_SPECIALS = /[&<>"\t\n\r]/g;
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\t': '&#x9;',
  '\n': '&#xA;',
  '\r': '&#xD;',
};

/** Every character NOT_XML_CHAR could match is one of these; most texts have none, and one test is cheaper. */
const MAYBE_NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;

const xmlChars = (text: string) => (MAYBE_NOT_XML_CHAR.test(text) ? text.replace(NOT_XML_CHAR, '\uFFFD') : text);

/** Three plain replacements cost less than one with a callback per match (results are markup-dense). */
export function escapeXmlText(text: string): string {
  const valid = xmlChars(text);
  return TEXT_SPECIAL.test(valid) ? valid.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : valid;
}

/** For double-quoted attribute values; white space is escaped so that it survives attribute normalisation. */
export function escapeXmlAttribute(text: string): string {
  const valid = xmlChars(text);
  return ATTRIBUTE_SPECIAL.test(valid) ? valid.replace(ATTRIBUTE_SPECIALS, (c) => ENTITIES[c] ?? c) : valid;
}
