/** Where the identity provider answers, below BASE_PATH, so that its entity ID is PUBLIC_URL + the metadata path. */
export const SAML_PATHS = {
  metadata: '/saml/metadata',
  sso: '/saml/sso',
  ssoInit: '/saml/sso/init',
  slo: '/saml/slo',
  sloContinue: '/saml/slo/continue',
  continue: '/saml/continue',
} as const;

/** The identity provider's own addresses, from PUBLIC_URL. */
export interface IdpUrls {
  entityId: string;
  sso: string;
  slo: string;
  /** The path (below the site, as a sign-in return address) that continues a pending sign-in. */
  continuePath(handle: string): string;
  /** The path that starts a sign-out made elsewhere on its way round the SPs told through the browser. */
  logoutPath(handle: string): string;
}

export function idpUrls(publicUrl: string, basePath: string): IdpUrls {
  return {
    entityId: `${publicUrl}${SAML_PATHS.metadata}`,
    sso: `${publicUrl}${SAML_PATHS.sso}`,
    slo: `${publicUrl}${SAML_PATHS.slo}`,
    continuePath: (handle) => `${basePath}${SAML_PATHS.continue}/${encodeURIComponent(handle)}`,
    logoutPath: (handle) => `${basePath}${SAML_PATHS.sloContinue}/${encodeURIComponent(handle)}`,
  };
}
