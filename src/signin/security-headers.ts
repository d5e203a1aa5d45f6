import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler } from 'express';

/**
 * Headers for every sign-in response. The pages need no script, so the policy allows none; the one inline
 * style runs under a per-response nonce. There is no form-action: browsers apply it to the redirect after
 * a sign-in too, and that goes to partner origins. With `scriptHashes`, the policy has a `script-src` without
 * sources, to which oidc-provider adds the hash of the one inline script of a page it writes (form_post's
 * auto-submit); no other script runs. With `scriptNonce`, the page's own inline script runs under the same nonce
 * as its style (the SAML identity provider's page that posts a message on to a service provider). `passkeys` tells
 * the requests whose page offers passkeys: its scripts, served by the service itself, run under the nonce, and may
 * ask the service (and only it) for a ceremony's options.
 */
export function securityHeaders(
  logoUrl: string | undefined,
  options: { scriptHashes?: boolean; scriptNonce?: boolean; passkeys?: (req: Request) => boolean } = {},
): RequestHandler {
  const logoOrigin = logoUrl !== undefined && URL.canParse(logoUrl) ? ` ${new URL(logoUrl).origin}` : '';
  return (req, res, next) => {
    const nonce = randomBytes(16).toString('base64url');
    const passkeys = options.passkeys?.(req) === true;
    const scripts = passkeys
      ? ` script-src 'nonce-${nonce}'; connect-src 'self';`
      : options.scriptNonce === true
        ? ` script-src 'nonce-${nonce}';`
        : options.scriptHashes === true
          ? ' script-src;'
          : '';
    res.locals.styleNonce = nonce;
    res.setHeader(
      'Content-Security-Policy',
      `default-src 'none';${scripts} style-src 'nonce-${nonce}'; img-src 'self'${logoOrigin}; base-uri 'none'; frame-ancestors 'none'`,
    );
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
}
