import type { IncomingMessage, ServerResponse } from 'node:http';

/** The provider's pages, in the templates directory beside the sign-in pages' (TEMPLATE_DIR overrides them too). */
export type OidcPageName = 'oidc-consent' | 'oidc-logout' | 'message';

/**
 * How the provider's pages look like the sign-in pages: the same layout, branding and security headers. The app
 * hands them in from the sign-in pages' own, so that one place decides how every page looks.
 */
export interface OidcPages {
  /** The page's HTML; sets the pages' security headers on `res`. Values are HTML-escaped. */
  render(req: IncomingMessage, res: ServerResponse, name: OidcPageName, view: object): string;
  /**
   * Sets the pages' security headers on `res` for a page oidc-provider writes itself (form_post's, which carries
   * the code to the client): a `script-src` the provider adds its inline auto-submit script's hash to.
   */
  protect(req: IncomingMessage, res: ServerResponse): void;
}

/** What the scopes let a client see, as the consent page lists them. */
const SCOPE_TEXTS: Readonly<Record<string, string>> = {
  openid: 'that it is you (your member id)',
  profile: 'your name',
  email: 'your email address',
  membership: 'whether you are a member, and your roles',
};

export function consentView(clientName: string, memberName: string, scopes: readonly string[], action: string): object {
  return {
    title: `Share your details with ${clientName}?`,
    clientName,
    memberName,
    scopes: scopes.map((scope) => SCOPE_TEXTS[scope] ?? scope),
    action,
  };
}

export function logoutView(clientName: string | undefined, action: string, xsrf: string): object {
  return { title: 'Sign out', clientName, action, xsrf };
}

export function messageView(title: string, message: string): object {
  return { title, message };
}

/** The page of a request the provider refused: the OAuth error code and its description. */
export function refusalView(error: string, description: string): object {
  return messageView('Signing in could not continue', `${error}: ${description}`);
}
