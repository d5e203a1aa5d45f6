import { ServiceError } from '../service/errors.js';
import type { EventContext, Services } from '../service/index.js';
import { clientUriProblem, type OidcClientInput } from '../service/oidc/index.js';
import { SAML_MEMBER_FIELDS, SAML_NAME_ID_FORMATS, SAML_SIGNED, samlAttribute, type SamlSpChoices, type SamlSpInput, type SamlSpSettings } from '../service/saml/index.js';

/** An SP's registration as the SAML identity provider reads its metadata (src/saml/sp-metadata.ts; the app hands it in). */
export interface SpMetadataReader {
  register(xml: string, choices: SamlSpChoices): { ok: true; entityId: string; settings: SamlSpSettings; warnings: string[] } | { ok: false; reason: string };
  /** The metadata at an https URL, fetched once; throws with why it could not be. */
  fetch(url: string): Promise<string>;
}

/** A field of a site's form, as the template draws it. */
export interface SiteField {
  name: string;
  label: string;
  hint?: string;
  kind: 'text' | 'lines' | 'checkbox' | 'select';
  /** A select's choices; its first is the default. */
  choices?: readonly string[];
}

/** What a form's fields hold, as sent: text, or 'yes' for a ticked box. */
export type SiteValues = Record<string, string>;

/** A site added: what identifies it, what the admin is shown once (a client's secret), and what to know. */
export interface SiteAdded {
  facts: Array<{ label: string; value: string }>;
  secret?: { label: string; value: string } | undefined;
  warnings: readonly string[];
}

/** A form's values checked: what the service is to be given, or each field's problem (`''` for the form's own). */
export type CheckedSite<T> = { ok: true; input: T; values: SiteValues } | { ok: false; problems: Record<string, string>; values: SiteValues };

/** A site's form as each kind defines it: its fields, how they are checked into the service's input, and the service call. */
interface SiteFormDefinition<T> {
  /** The page's title and the confirmation's button. */
  label: string;
  fields: readonly SiteField[];
  /** Checks what was sent; `values` are what the confirmation carries on (a fetched metadata document in place of its URL). */
  check(values: SiteValues, deps: { metadata: SpMetadataReader }): Promise<CheckedSite<T>>;
  /** What the confirmation page says will happen. */
  consequence(input: T): string;
  add(services: Services, input: T, by: EventContext): Promise<SiteAdded>;
}

/** What the form sent, reviewed: its problems, or what the confirmation says and carries on, and how to add it. */
export type SiteReview =
  | { ok: false; problems: Record<string, string>; values: SiteValues }
  | { ok: true; consequence: string; values: SiteValues; add(services: Services, by: EventContext): Promise<SiteAdded> };

/** A site's form, whatever its kind. */
export interface SiteForm {
  label: string;
  fields: readonly SiteField[];
  review(values: SiteValues, deps: { metadata: SpMetadataReader }): Promise<SiteReview>;
}

function siteForm<T>(definition: SiteFormDefinition<T>): SiteForm {
  const { label, fields } = definition;
  return {
    label,
    fields,
    async review(values, deps) {
      const checked = await definition.check(values, deps);
      if (!checked.ok) return checked;
      const { input } = checked;
      return { ok: true, consequence: definition.consequence(input), values: checked.values, add: (services, by) => definition.add(services, input, by) };
    },
  };
}

const lines = (text: string | undefined) => (text ?? '').split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
const ticked = (values: SiteValues, name: string) => values[name] === 'yes';

/** Each URI of a field, or its problem: an absolute http(s) URL without a fragment or credentials. */
function uriProblem(uris: readonly string[]): string | undefined {
  for (const uri of uris) {
    const problem = clientUriProblem(uri);
    if (problem !== null) return `${uri} ${problem}.`;
  }
  return undefined;
}

/** The service's refusal of what a form gave, on the field it concerns (`''`: the form's own); anything else is thrown on. */
export function refusal(error: unknown): Record<string, string> {
  if (!(error instanceof ServiceError)) throw error;
  return error.code.endsWith('_EXISTS') ? { name: `${error.message}: choose another name.` } : { '': error.message };
}

const NAME: SiteField = { name: 'name', label: 'Name', hint: 'How staff and members read it: "Learning portal".', kind: 'text' };

/** `oidc-clients add`, as a form: the same options, the same service call. */
export const OIDC_CLIENT_FORM = siteForm<{ name: string; client: OidcClientInput }>({
  label: 'Add the OpenID client',
  fields: [
    NAME,
    { name: 'redirectUris', label: 'Redirect URIs', hint: 'Where members are sent back after signing in, one per line, matched exactly.', kind: 'lines' },
    { name: 'postLogoutRedirectUris', label: 'Post-logout redirect URIs (optional)', hint: 'Where members may be sent after signing out through the site, one per line.', kind: 'lines' },
    { name: 'backchannelLogoutUri', label: 'Back-channel logout URI (optional)', hint: "Where the site is told that a member's session ended.", kind: 'text' },
    { name: 'public', label: 'A single-page or native app: no secret, PKCE required', kind: 'checkbox' },
    { name: 'firstParty', label: "The organisation's own site: members are not asked to consent", kind: 'checkbox' },
  ],
  async check(values) {
    const problems: Record<string, string> = {};
    const name = values['name']?.trim() ?? '';
    if (name === '') problems['name'] = 'Enter the client\'s name.';
    const redirectUris = lines(values['redirectUris']);
    const postLogoutRedirectUris = lines(values['postLogoutRedirectUris']);
    const backchannel = values['backchannelLogoutUri']?.trim() ?? '';
    const redirectProblem = redirectUris.length === 0 ? 'Enter at least one redirect URI.' : uriProblem(redirectUris);
    if (redirectProblem) problems['redirectUris'] = redirectProblem;
    const postLogoutProblem = uriProblem(postLogoutRedirectUris);
    if (postLogoutProblem) problems['postLogoutRedirectUris'] = postLogoutProblem;
    const backchannelProblem = backchannel === '' ? undefined : uriProblem([backchannel]);
    if (backchannelProblem) problems['backchannelLogoutUri'] = backchannelProblem;
    if (Object.keys(problems).length > 0) return { ok: false, problems, values };
    const client: OidcClientInput = {
      redirectUris,
      postLogoutRedirectUris,
      backchannelLogoutUri: backchannel === '' ? undefined : backchannel,
      public: ticked(values, 'public'),
      firstParty: ticked(values, 'firstParty'),
    };
    return { ok: true, input: { name, client }, values };
  },
  consequence: ({ name, client }) =>
    `${name} can sign members in with OpenID Connect, sending them back to ${client.redirectUris.join(', ')}` +
    `${client.public ? ', as a public client (no secret)' : '; its client secret is shown once on the next page'}` +
    `${client.firstParty ? ', without asking members to consent' : ''}.`,
  async add(services, { name, client }, by) {
    const { client: added, secret } = await services.oidc.clients.add(name, client, by);
    return {
      facts: [{ label: 'Client id', value: added.id }],
      secret: secret === null ? undefined : { label: `Client secret of ${name}`, value: secret },
      warnings: [],
    };
  },
});

/**
 * `saml-sps add`, as a form: the metadata pasted or at an https URL, and the same choices; read as the CLI reads
 * them, and what it makes of them shown on the confirmation.
 */
export const SAML_SP_FORM = siteForm<SamlSpInput & { warnings: readonly string[] }>({
  label: 'Add the SAML site',
  fields: [
    NAME,
    { name: 'metadataUrl', label: 'Metadata URL', hint: "The site's SP metadata at an https address, fetched once, now. Or paste it below.", kind: 'text' },
    { name: 'metadata', label: 'Metadata document', hint: "The site's SP metadata XML, pasted whole.", kind: 'lines' },
    { name: 'nameIdFormat', label: 'How the member is named to the site', hint: 'persistent: the member id.', kind: 'select', choices: SAML_NAME_ID_FORMATS },
    { name: 'attributes', label: 'Attributes (optional)', hint: `Instead of the default set, one NAME=FIELD per line; FIELD one of ${SAML_MEMBER_FIELDS.join(', ')}.`, kind: 'lines' },
    { name: 'sign', label: 'What is signed', kind: 'select', choices: SAML_SIGNED },
    { name: 'requireSignedRequests', label: "Refuse the site's unsigned requests, even if its metadata does not say it signs them", kind: 'checkbox' },
    { name: 'noEncrypt', label: 'Do not encrypt assertions, although the metadata has an encryption certificate', kind: 'checkbox' },
  ],
  async check(values, { metadata }) {
    const problems: Record<string, string> = {};
    const name = values['name']?.trim() ?? '';
    if (name === '') problems['name'] = 'Enter the site\'s name.';
    const url = values['metadataUrl']?.trim() ?? '';
    let xml = values['metadata']?.trim() ?? '';
    if ((url === '') === (xml === '')) problems['metadataUrl'] = 'Give the metadata URL or paste the metadata document: one of them.';
    else if (url !== '') {
      try {
        xml = await metadata.fetch(url);
      } catch (error) {
        problems['metadataUrl'] = `${url}: ${(error as Error).message}`;
      }
    }
    const attributeLines = lines(values['attributes']);
    const attributes = attributeLines.map(samlAttribute);
    const wrong = attributeLines.find((_, index) => attributes[index] === null);
    if (wrong !== undefined) problems['attributes'] = `${wrong} is not NAME=FIELD, FIELD one of ${SAML_MEMBER_FIELDS.join(', ')}.`;
    const nameIdFormat = SAML_NAME_ID_FORMATS.find((format) => format === values['nameIdFormat']);
    const sign = SAML_SIGNED.find((choice) => choice === values['sign']);
    const choices: SamlSpChoices = {
      nameIdFormat,
      attributes: attributeLines.length > 0 ? attributes.filter((attribute) => attribute !== null) : undefined,
      requireSignedRequests: ticked(values, 'requireSignedRequests'),
      encrypt: !ticked(values, 'noEncrypt'),
      sign,
    };
    const read = xml !== '' && problems['metadataUrl'] === undefined ? metadata.register(xml, choices) : undefined;
    if (read?.ok === false) problems[url === '' ? 'metadata' : 'metadataUrl'] = read.reason;
    if (Object.keys(problems).length > 0 || !read?.ok) return { ok: false, problems, values };
    // The confirmation carries the document fetched, so that what it registers is what was read here.
    const carried = { ...values, metadataUrl: '', metadata: xml };
    return { ok: true, input: { name, entityId: read.entityId, metadataXml: xml, settings: read.settings, warnings: read.warnings }, values: carried };
  },
  consequence: ({ name, entityId, settings, warnings }) =>
    `${name} (entity id ${entityId}) can sign members in with SAML 2.0: named to it ${settings.nameIdFormat}, ` +
    `given ${settings.attributes.map((attribute) => attribute.name).join(', ') || 'no attributes'}; ` +
    `${[settings.signResponse && 'the response', settings.signAssertion && 'the assertion'].filter(Boolean).join(' and ')} signed, ` +
    `assertions ${settings.encryptAssertion ? '' : 'not '}encrypted, unsigned requests ${settings.requireSignedRequests ? 'refused' : 'taken'}.` +
    warnings.map((warning) => ` Note: ${warning}.`).join(''),
  async add(services, { warnings, ...sp }, by) {
    const added = await services.saml.sps.add(sp, by);
    return { facts: [{ label: 'Entity id', value: added.entityId }], warnings };
  },
});
