import { OIDC_CLIENT_FORM, SAML_SP_FORM, type SiteForm } from './site-forms.js';

/** The sites admin staff add with a form of their own: OpenID clients and SAML SPs. */
export const SITE_FORMS = { 'oidc-client': OIDC_CLIENT_FORM, 'saml-sp': SAML_SP_FORM } as const satisfies Record<string, SiteForm>;

export type SiteKind = keyof typeof SITE_FORMS;

/** The action each names in the console's `staff action` log line, as the CLI names its command. */
export const SITE_ACTIONS: Readonly<Record<SiteKind, string>> = { 'oidc-client': 'oidc-client-add', 'saml-sp': 'saml-sp-add' };

export function isSiteKind(value: unknown): value is SiteKind {
  return typeof value === 'string' && Object.hasOwn(SITE_FORMS, value);
}
