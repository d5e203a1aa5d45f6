/**
 * XML escaping as ASMX's XmlWriter does it. Element text escapes only &, < and > (never quotes: the PHP
 * iBridge client rewrites encoding="utf-16" in the raw response text). Characters XML 1.0 cannot carry
 * become U+FFFD rather than producing a document no client can parse.
 */
// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const TEXT_SPECIALS = /[&<>]/g;
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

export function escapeXmlText(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD').replace(TEXT_SPECIALS, (c) => ENTITIES[c] ?? c);
}

/** For double-quoted attribute values; white space is escaped so that it survives attribute normalisation. */
export function escapeXmlAttribute(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD').replace(ATTRIBUTE_SPECIALS, (c) => ENTITIES[c] ?? c);
}
