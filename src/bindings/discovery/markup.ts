import { escapeMarkup } from './escape.js';

/** HTML that is already safe to write; anything else interpolated into a template gets escaped. */
export class Markup {
  constructor(readonly html: string) {}
}

export type Interpolation = Markup | string | number | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value instanceof Markup) return value.html;
  if (typeof value === 'string' || typeof value === 'number') return escapeMarkup(String(value));
  return value.map(render).join('');
}

function template(strings: TemplateStringsArray, values: Interpolation[], literal: (text: string) => string): Markup {
  const first = literal(strings[0] ?? '');
  return new Markup(values.reduce<string>((out, value, i) => out + render(value) + literal(strings[i + 1] ?? ''), first));
}

/** Tag for HTML: the template's own text is markup, interpolations are text. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Markup {
  return template(strings, values, (text) => text);
}

/** Tag for code shown in a page: the template's own text is text too; only Markup values stay markup. */
export function code(strings: TemplateStringsArray, ...values: Interpolation[]): Markup {
  return template(strings, values, escapeMarkup);
}
