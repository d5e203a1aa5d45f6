import type { IncomingMessage, ServerResponse } from 'node:http';

/** The identity provider's pages, in the templates directory beside the sign-in pages' (TEMPLATE_DIR overrides them too). */
export type SamlPageName = 'saml-post' | 'message';

/**
 * How the identity provider's pages look like the sign-in pages: the same layout, branding and security
 * headers. The app hands them in from the sign-in pages' own.
 */
export interface SamlPages {
  /**
   * The page's HTML; sets the pages' security headers on `res`, with a `script-src` for the page's own inline
   * script (saml-post's auto-submit). Values are HTML-escaped.
   */
  render(req: IncomingMessage, res: ServerResponse, name: SamlPageName, view: object): string;
}

export function messageView(title: string, message: string): object {
  return { title, message };
}

/** The page that posts a SAML message to a service provider's endpoint, by itself when scripts run. */
export function postView(action: string, fields: Record<string, string>): object {
  return {
    title: 'Continuing',
    message: 'Taking you back to the site you came from.',
    action,
    fields: Object.entries(fields).map(([name, value]) => ({ name, value })),
  };
}
