import type { Config } from '../../config/config.js';
import type { ChosenField, IbridgeAttributeName, JsonFieldName } from '../../config/result-fields.js';
import type { Outcome, SessionCredentials } from '../../service/authentication.js';
import { extraValue } from '../../service/extra-key.js';
import type { MemberRow } from '../../service/index.js';
import { escapeXmlAttribute } from '../../web/xml-text.js';
import { ibridgeDocument } from './ibridge-document.js';
import { IN_BAND_RESULTS, inBandError } from './in-band-errors.js';

export type ResultRenderer = (outcome: Outcome) => string;

/** What the result formats read from the configuration. */
export type ResultSettings = Pick<Config, 'resultFormat' | 'jsonFields' | 'ibridgeAttributes'> & {
  signin: Pick<Config['signin'], 'cookieName' | 'tokenCookieName'>;
};

type MemberOutcome = Extract<Outcome, { kind: 'member' }>;

function fullName(member: MemberRow): string {
  return [member.firstName, member.lastName].filter(Boolean).join(' ');
}

/** The member attributes an iBridge User element can add, as attribute text. */
const IBRIDGE_ATTRIBUTES: Readonly<Record<IbridgeAttributeName, (member: MemberRow) => string | undefined>> = {
  IS_MEMBER: (m) => (m.attributes.isMember === undefined ? undefined : String(m.attributes.isMember)),
  CONTACT_NUMBER: (m) => m.attributes.contactNumber,
  LABEL_NAME: (m) => m.attributes.labelName,
  ORGANISATION_ID: (m) => m.attributes.organisationId,
  ORGANISATION_NAME: (m) => m.attributes.organisationName,
  PRICE_LEVEL_ID: (m) => m.attributes.priceLevelId,
  PRICE_LEVEL_NAME: (m) => m.attributes.priceLevelName,
  ROLES: (m) => m.attributes.roles?.map((role) => role.name).join('|'),
};

function ibridge(settings: ResultSettings): ResultRenderer {
  const { cookieName, tokenCookieName } = settings.signin;
  /**
   * USER_COOKIE: the cookies a partner sets on the shared domain to carry the sign-in, as NAME=value pairs
   * joined by |; left out when there is none (a session from before login cookies were kept).
   */
  const userCookie = (session: SessionCredentials) => {
    const pairs = [session.cookie === null ? null : `${cookieName}=${session.cookie}`, tokenCookieName === undefined ? null : `${tokenCookieName}=${session.token}`];
    const present = pairs.filter((pair) => pair !== null);
    return present.length > 0 ? present.join('|') : undefined;
  };
  const chosen = settings.ibridgeAttributes.map((field): [string, (member: MemberRow) => string | undefined] =>
    field.kind === 'known' ? [field.name, IBRIDGE_ATTRIBUTES[field.name]] : [field.key, (m) => extraValue(m.attributes.extra, field.key)],
  );
  /** The User element's attributes in their order, those without a value left out; one string built in one pass. */
  const user = ({ member: m, session }: MemberOutcome) => {
    let text = '';
    const add = (name: string, value: string | undefined) => {
      if (value !== undefined) text += `${text === '' ? '' : ' '}${name}="${escapeXmlAttribute(value)}"`;
    };
    add('ID', m.id);
    add('TOKEN', session?.token);
    add('EMAIL', m.email);
    add('FIRSTNAME', m.firstName);
    add('LASTNAME', m.lastName);
    add('FULL_NAME', fullName(m));
    add('USER_COOKIE', session ? userCookie(session) : undefined);
    for (const [name, value] of chosen) add(name, value(m));
    return text;
  };
  const refused = IN_BAND_RESULTS.ibridge(settings);
  return (outcome) => {
    switch (outcome.kind) {
      case 'member':
        return ibridgeDocument(`<User ${user(outcome)} />`);
      case 'session-ended':
        return ibridgeDocument('<Success Description="The session was deleted" />');
      case 'refused':
        return refused(inBandError(outcome));
    }
  };
}

/** CRM4M's fields: strings or null, pa_member a boolean, pa_webroles a list of {id, name}. */
const JSON_FIELDS: Readonly<Record<JsonFieldName, (outcome: MemberOutcome) => unknown>> = {
  status: () => 'Success',
  message: () => '',
  contactid: ({ member }) => member.id,
  pa_webloginname: ({ member }) => member.username,
  emailaddress1: ({ member }) => member.email,
  firstname: ({ member }) => member.firstName,
  lastname: ({ member }) => member.lastName,
  fullname: ({ member }) => fullName(member),
  pa_member: ({ member }) => member.attributes.isMember === true,
  pa_token: ({ session }) => session?.token ?? null,
  pa_contactnumber: ({ member }) => member.attributes.contactNumber ?? null,
  pa_labelname: ({ member }) => member.attributes.labelName ?? null,
  parentcustomerid: ({ member }) => member.attributes.organisationName ?? null,
  parentcustomerid_id: ({ member }) => member.attributes.organisationId ?? null,
  defaultpricelevelid: ({ member }) => member.attributes.priceLevelName ?? null,
  defaultpricelevelid_id: ({ member }) => member.attributes.priceLevelId ?? null,
  pa_webroles: ({ member }) => member.attributes.roles?.map(({ id, name }) => ({ id, name })) ?? [],
};

/** CRM4M: a JSON object in the string, of the configured fields. */
function json(settings: ResultSettings): ResultRenderer {
  const fields = settings.jsonFields.map((field: ChosenField<JsonFieldName>): [string, (outcome: MemberOutcome) => unknown] =>
    field.kind === 'known' ? [field.name, JSON_FIELDS[field.name]] : [field.key, ({ member }) => extraValue(member.attributes.extra, field.key) ?? null],
  );
  const refused = IN_BAND_RESULTS.json(settings);
  return (outcome) => {
    switch (outcome.kind) {
      case 'member':
        return JSON.stringify(Object.fromEntries(fields.map(([name, value]) => [name, value(outcome)])));
      case 'session-ended':
        return JSON.stringify({ status: 'Success' });
      case 'refused':
        return refused(inBandError(outcome));
    }
  };
}

/** The member id; an in-band error as plain writes it. */
function plain(settings: ResultSettings): ResultRenderer {
  const refused = IN_BAND_RESULTS.plain(settings);
  return (outcome) => (outcome.kind === 'refused' ? refused(inBandError(outcome)) : outcome.member.id);
}

const FORMATS: Readonly<Record<Config['resultFormat'], (settings: ResultSettings) => ResultRenderer>> = { ibridge, json, plain };

/** The configured format's renderer, its field lists resolved once. */
export function createResultRenderer(settings: ResultSettings): ResultRenderer {
  return FORMATS[settings.resultFormat](settings);
}
