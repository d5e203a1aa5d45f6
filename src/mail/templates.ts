import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Mustache from 'mustache';
import { StartupError } from '../startup-error.js';
import { MAIL_KINDS, type Mail, type MailKind } from './mail.js';
import { mailView, type MailBranding } from './views.js';

// src/mail/ and dist/mail/ are both two levels below the package root, where templates/mail/ sits.
const BUILT_IN = new URL('../../templates/mail/', import.meta.url);

/** A mail as it is sent: one subject line, a plain-text part and an HTML part. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export interface MailTemplates {
  render(mail: Mail): RenderedMail;
}

interface KindTemplates {
  subject: string;
  text: string;
  html: string;
}

/** The text parts and the subject are not HTML: their values are written as they are. */
const AS_IS = { escape: (value: unknown) => String(value) };

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/**
 * Only the characters HTML needs escaped: Mustache's default also writes / and = as entities, and a link
 * written https:&#x2F;&#x2F;… is what spam filters take for a hidden one.
 */
const HTML = { escape: (value: unknown) => String(value).replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char) };

/**
 * Reads the mail templates once, at start-up, from templates/mail/: per kind a subject, a text and an HTML
 * template (password_changed → password-changed.subject.mustache, …), the two layouts around them and the
 * "when and from where" partials. A file of the same name in TEMPLATE_DIR/mail/ replaces the built-in one; a
 * template that does not parse stops the start.
 */
export function loadMailTemplates(templateDir: string | undefined, branding: MailBranding): MailTemplates {
  const read = (name: string): string => {
    const file = `${name}.mustache`;
    const override = templateDir === undefined ? undefined : join(templateDir, 'mail', file);
    const path = override !== undefined && existsSync(override) ? override : fileURLToPath(new URL(file, BUILT_IN));
    const template = readFileSync(path, 'utf8');
    try {
      Mustache.parse(template);
    } catch (error) {
      throw new StartupError(`mail template ${path}: ${(error as Error).message}`, { cause: error });
    }
    return template;
  };
  const layout = { text: read('layout.text'), html: read('layout.html') };
  const origin = { text: read('origin.text'), html: read('origin.html') };
  const kinds = Object.fromEntries(
    MAIL_KINDS.map((kind) => {
      const base = kind.replaceAll('_', '-');
      return [kind, { subject: read(`${base}.subject`), text: read(`${base}.text`), html: read(`${base}.html`) }];
    }),
  ) as Record<MailKind, KindTemplates>;
  return {
    render(mail) {
      const templates = kinds[mail.kind];
      const view = mailView(mail, branding);
      // A header is one line: whatever line breaks the template or a value brought become spaces.
      const subject = Mustache.render(templates.subject, view, {}, AS_IS).replace(/\s+/g, ' ').trim();
      const withSubject = { ...view, subject };
      return {
        subject,
        text: Mustache.render(layout.text, withSubject, { content: templates.text, origin: origin.text }, AS_IS),
        html: Mustache.render(layout.html, withSubject, { content: templates.html, origin: origin.html }, HTML),
      };
    },
  };
}
