import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Mustache from 'mustache';
import { StartupError } from '../startup-error.js';

// src/signin/ and dist/signin/ are both two levels below the package root, where templates/ sits.
const BUILT_IN = new URL('../../templates/', import.meta.url);

// oidc-consent and oidc-logout are the OpenID provider's (src/oidc/), saml-post the SAML identity provider's
// (src/saml/), the admin- pages the staff console's (src/admin/), in the same layout.
const PAGE_NAMES = [
  'home', 'login', 'signed-in', 'message', 'code', 'setup', 'recovery-codes', 'account', 'forgot', 'reset-password',
  'oidc-consent', 'oidc-logout', 'saml-post', 'admin-search', 'admin-member', 'admin-confirm',
  'admin-manage', 'admin-issued', 'admin-site-form',
] as const;
export type PageName = (typeof PAGE_NAMES)[number];
/** Pieces the pages include by name (`{{> admin-form}}`): the staff console's form for a management action. */
const PARTIAL_NAMES = ['admin-form'] as const;

export interface Templates {
  /** The page inside the layout; `view` holds everything both templates read. Values are HTML-escaped. */
  render(page: PageName, view: object): string;
}

/**
 * Reads the templates once, at start-up: a file of the same name in templateDir replaces the built-in one.
 * A configured directory that does not exist, or a template that does not parse, stops the start.
 */
export function loadTemplates(templateDir: string | undefined): Templates {
  if (templateDir !== undefined && !isDirectory(templateDir)) {
    throw new StartupError(`TEMPLATE_DIR ${templateDir}: no such directory`);
  }
  const read = (name: string): string => {
    const file = `${name}.mustache`;
    const override = templateDir === undefined ? undefined : join(templateDir, file);
    const path = override !== undefined && existsSync(override) ? override : fileURLToPath(new URL(file, BUILT_IN));
    const template = readFileSync(path, 'utf8');
    try {
      Mustache.parse(template);
    } catch (error) {
      throw new StartupError(`template ${path}: ${(error as Error).message}`, { cause: error });
    }
    return template;
  };
  const layout = read('layout');
  const pages = new Map(PAGE_NAMES.map((name) => [name, read(name)]));
  const partials = Object.fromEntries(PARTIAL_NAMES.map((name) => [name, read(name)]));
  return {
    render: (page, view) => Mustache.render(layout, view, { ...partials, content: pages.get(page) ?? '' }),
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
