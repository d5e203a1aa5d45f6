import { escapeXmlAttribute } from '../web/xml-text.js';

/** XML written here, which is put into other markup as it is. */
export class Markup {
  constructor(readonly text: string) {}
}

/**
 * Markup with every interpolated value escaped, in one pass: a value (a member's name, an SP's entity ID, an
 * attribute name an operator chose) is text wherever it lands, in an attribute or an element, and nothing in
 * it is read again as markup or as a placeholder. Only Markup (and lists of it) goes in unescaped.
 */
export function xml(strings: TemplateStringsArray, ...values: ReadonlyArray<string | Markup | readonly Markup[]>): Markup {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    const inserted = value instanceof Markup ? value.text : typeof value === 'string' ? escapeXmlAttribute(value) : value.map((part) => part.text).join('');
    text += inserted + (strings[index + 1] ?? '');
  });
  return new Markup(text);
}

/** An optional attribute: ` name="value"`, or nothing when there is no value. */
export function optionalAttribute(name: string, value: string | undefined): Markup {
  return new Markup(value === undefined ? '' : ` ${name}="${escapeXmlAttribute(value)}"`);
}
