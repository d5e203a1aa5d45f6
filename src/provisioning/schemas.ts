/**
 * The schemas served at /Schemas (RFC 7643 §7): the attributes of the core User schema this service keeps, its
 * member extension, and the core Group schema (a Group is one of the association's roles). They list what targets.ts and resource.ts handle, no more: a writable attribute listed
 * here is read back as it was written (texts trimmed), or its write is refused.
 */
import { TEXT_ATTRIBUTES } from '../service/member-attributes.js';
import { ENTERPRISE_EXTENSION, GROUP_SCHEMA, MEMBER_EXTENSION, SCHEMA_SCHEMA, USER_SCHEMA } from './urns.js';

interface AttributeOptions {
  type?: 'string' | 'boolean' | 'complex' | 'reference';
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'writeOnly' | 'immutable';
  returned?: 'always' | 'never' | 'default';
  uniqueness?: 'none' | 'server';
  subAttributes?: AttributeDefinition[];
  canonicalValues?: string[];
  referenceTypes?: string[];
}

/** An attribute as /Schemas describes it (RFC 7643 §7). */
export interface AttributeDefinition {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference';
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'writeOnly' | 'immutable';
  returned: 'always' | 'never' | 'default';
  uniqueness: 'none' | 'server';
  subAttributes?: AttributeDefinition[];
  canonicalValues?: string[];
  referenceTypes?: string[];
}

function attribute(name: string, description: string, options: AttributeOptions = {}): AttributeDefinition {
  const { type = 'string', multiValued = false, required = false, caseExact = false, mutability = 'readWrite', returned = 'default', uniqueness = 'none', ...rest } = options;
  return { name, type, multiValued, description, required, caseExact, mutability, returned, uniqueness, ...rest };
}

const USER_ATTRIBUTES: AttributeDefinition[] = [
  attribute('userName', "The member's username, unique ignoring case; members sign in with it.", { required: true, uniqueness: 'server' }),
  attribute('name', "The member's name.", {
    type: 'complex',
    subAttributes: [
      attribute('formatted', 'The full name as written; when none was given, the given and family names.'),
      attribute('familyName', "The member's last name."),
      attribute('givenName', "The member's first name."),
    ],
  }),
  attribute('displayName', 'The name to show; the formatted name when none was given.'),
  attribute('emails', "The member's one email address, a primary work address; more than one address, or one of another type or not primary, is refused. Several members may share one.", {
    type: 'complex',
    multiValued: true,
    subAttributes: [
      attribute('value', 'The address.'),
      attribute('type', 'Always work.', { canonicalValues: ['work'] }),
      attribute('primary', 'Always true.', { type: 'boolean' }),
    ],
  }),
  attribute('active', "Whether the member may sign in; an inactive member's sessions are no longer accepted.", { type: 'boolean' }),
  attribute('password', "The member's password: set, never returned.", { mutability: 'writeOnly', returned: 'never', caseExact: true }),
  attribute('roles', "The member's roles, one per id: a role given twice is kept once, with its last name; type and primary are not kept.", {
    type: 'complex',
    multiValued: true,
    subAttributes: [attribute('value', "The role's id.", { caseExact: true }), attribute('display', "The role's name; its id when none is given.")],
  }),
  attribute('title', "The member's title, as written."),
  attribute('preferredLanguage', "The member's preferred language (an Accept-Language value such as en-GB), as written."),
  attribute('locale', "The member's locale (such as en-GB), as written."),
  attribute('timezone', "The member's time zone (an IANA name such as Europe/London), as written."),
  attribute('phoneNumbers', "The member's phone numbers, at most 10, as written.", {
    type: 'complex',
    multiValued: true,
    subAttributes: [
      attribute('value', 'The number, as written.'),
      attribute('display', 'The number as shown.'),
      attribute('type', 'What kind of number it is.', { canonicalValues: ['work', 'home', 'mobile', 'fax', 'pager', 'other'] }),
      attribute('primary', 'Whether it is the primary number.', { type: 'boolean' }),
    ],
  }),
  attribute('addresses', "The member's postal addresses, at most 10, as written.", {
    type: 'complex',
    multiValued: true,
    subAttributes: [
      attribute('formatted', 'The whole address, as it is printed.'),
      attribute('streetAddress', 'The street address.'),
      attribute('locality', 'The city or locality.'),
      attribute('region', 'The state or region.'),
      attribute('postalCode', 'The postal code.'),
      attribute('country', 'The country (ISO 3166-1 alpha-2).'),
      attribute('type', 'What kind of address it is.', { canonicalValues: ['work', 'home', 'other'] }),
      attribute('primary', 'Whether it is the primary address.', { type: 'boolean' }),
    ],
  }),
  attribute('groups', "The Groups the member is in: its roles, as roles lists them. Read-only: a member joins or leaves a Group through /Groups (or roles).", {
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    subAttributes: [
      attribute('value', "The Group's id: the role's id.", { caseExact: true, mutability: 'readOnly' }),
      attribute('display', "The Group's name.", { mutability: 'readOnly' }),
    ],
  }),
];

const ENTERPRISE_ATTRIBUTES: AttributeDefinition[] = [
  attribute('employeeNumber', "The member's number in the organisation, as written."),
  attribute('organization', "The member's organisation, as written."),
  attribute('department', "The member's department, as written."),
];

const GROUP_ATTRIBUTES: AttributeDefinition[] = [
  attribute('displayName', "The role's name, as the members holding it show it (pa_webroles, the OpenID membership claim, the SAML roles attribute).", { required: true }),
  attribute('members', 'The members holding the role. Only Users are members: a Group is not a member of another.', {
    type: 'complex',
    multiValued: true,
    subAttributes: [
      attribute('value', "The member's id.", { caseExact: true, mutability: 'immutable' }),
      attribute('$ref', "The member's URI.", { type: 'reference', caseExact: true, mutability: 'immutable', referenceTypes: ['User'] }),
      attribute('display', "The member's username.", { mutability: 'readOnly' }),
      attribute('type', 'Always User.', { mutability: 'immutable', canonicalValues: ['User'] }),
    ],
  }),
];

const TEXT_DESCRIPTIONS: Record<(typeof TEXT_ATTRIBUTES)[number], string> = {
  contactNumber: "The member's contact number in the membership system (CRM4M pa_contactnumber).",
  labelName: "The member's name as printed on labels (CRM4M pa_labelname).",
  organisationId: "The id of the member's organisation (CRM4M parentcustomerid_id).",
  organisationName: "The name of the member's organisation (CRM4M parentcustomerid).",
  priceLevelId: "The id of the member's price level (CRM4M defaultpricelevelid_id).",
  priceLevelName: "The name of the member's price level (CRM4M defaultpricelevelid).",
};

const MEMBERSHIP_ATTRIBUTES: AttributeDefinition[] = [
  attribute('isMember', 'Whether the person is a member, as the membership system says (CRM4M pa_member).', { type: 'boolean' }),
  ...TEXT_ATTRIBUTES.map((key) => attribute(key, TEXT_DESCRIPTIONS[key], { caseExact: true })),
  attribute('extra', 'Free-form attributes, one text each; their names (letters, digits, _, . and -, starting with a letter or _) are the sub-attributes, kept as written.', {
    type: 'complex',
    caseExact: true,
    subAttributes: [],
  }),
];

export function schemaDocuments(baseUrl: string): Array<Record<string, unknown>> {
  const schema = (id: string, name: string, description: string, attributes: AttributeDefinition[]) => ({
    schemas: [SCHEMA_SCHEMA],
    id,
    name,
    description,
    attributes,
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${id}` },
  });
  return [
    schema(USER_SCHEMA, 'User', 'A member of the membership system. The attributes listed are kept as written (texts trimmed) and returned as kept; any other attribute of a User (nickName, photos, ims…) is ignored when written (RFC 7644 §3.3).', USER_ATTRIBUTES),
    schema(ENTERPRISE_EXTENSION, 'EnterpriseUser', "The enterprise extension's attributes kept; manager, costCenter and division are ignored when written.", ENTERPRISE_ATTRIBUTES),
    schema(MEMBER_EXTENSION, 'Member', 'The membership attributes that partner integrations read.', MEMBERSHIP_ATTRIBUTES),
    schema(GROUP_SCHEMA, 'Group', "One of the association's roles (a member type, a committee, a chapter) and the members holding it.", GROUP_ATTRIBUTES),
  ];
}

/** Names compared ignoring case (RFC 7643 §2.1), in a Map so that `constructor` finds nothing. */
const byName = (attributes: readonly AttributeDefinition[]) => new Map(attributes.map((definition) => [definition.name.toLowerCase(), definition]));
const DECLARED = { core: byName(USER_ATTRIBUTES), extension: byName(MEMBERSHIP_ATTRIBUTES), enterprise: byName(ENTERPRISE_ATTRIBUTES), group: byName(GROUP_ATTRIBUTES) };

/** The attribute /Schemas declares under this name (and sub-attribute) in a schema; undefined when it declares none. */
export function declaredAttribute(schema: keyof typeof DECLARED, name: string, sub?: string): AttributeDefinition | undefined {
  const found = DECLARED[schema].get(name.toLowerCase());
  if (sub === undefined || found === undefined) return found;
  return found.subAttributes?.find((definition) => definition.name.toLowerCase() === sub.toLowerCase());
}
