/** The rows the store reads and writes, and what its methods take and give (src/store/store.ts). */

export interface CallerRow {
  id: number;
  name: string;
  enabled: boolean;
  createdAt: number;
}

export interface CallerPasswordRow {
  id: number;
  callerId: number;
  createdAt: number;
}

/**
 * Optional facts about a member that partner integrations read (CRM4M's JSON fields, iBridge User attributes).
 * A fact not known is a key left out, never one set to undefined; src/service/member-attributes.ts checks them.
 */
export interface MemberAttributes {
  /** CRM4M pa_member. */
  isMember?: boolean;
  /** CRM4M pa_contactnumber. */
  contactNumber?: string;
  /** CRM4M pa_labelname. */
  labelName?: string;
  /** CRM4M parentcustomerid_id. */
  organisationId?: string;
  /** CRM4M parentcustomerid. */
  organisationName?: string;
  /** CRM4M defaultpricelevelid_id. */
  priceLevelId?: string;
  /** CRM4M defaultpricelevelid. */
  priceLevelName?: string;
  /** CRM4M pa_webroles. */
  roles?: Array<{ id: string; name: string }>;
  /** Free-form, tenant-specific. */
  extra?: Record<string, string>;
  /** What provisioning clients write of the member besides (SCIM's User and enterprise attributes), kept as sent. */
  profile?: MemberProfile;
}

/** The texts of a member's profile (src/service/member-attributes.ts lists them). */
export type ProfileText = 'title' | 'preferredLanguage' | 'locale' | 'timezone' | 'employeeNumber' | 'organization' | 'department';
/** A phone number or an address, with the sub-attributes SCIM gives them. */
export interface ProfileValue {
  value?: string;
  display?: string;
  type?: string;
  primary?: boolean;
  formatted?: string;
  streetAddress?: string;
  locality?: string;
  region?: string;
  postalCode?: string;
  country?: string;
}

export type MemberProfile = Partial<Record<ProfileText, string>> & {
  phoneNumbers?: ProfileValue[];
  addresses?: ProfileValue[];
};

export interface MemberRow {
  id: string;
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  enabled: boolean;
  createdAt: number;
  /** `{}` when none are known. */
  attributes: MemberAttributes;
  /**
   * 1 when created, one more with every write of the member (its fields, its flag, its password): a writer that
   * read version n changes the member only if it is still at n (updateMember), so that no change is lost.
   */
  version: number;
  /** When the member was last written (as version moved on): createdAt until then. */
  updatedAt: number;
  /** A provisioning client's key for the member (SCIM externalId), looked up exactly; null when none was given. */
  externalId: string | null;
  /** The name to show, when one was given (SCIM displayName); null otherwise. */
  displayName: string | null;
  /** The full name as a provisioning client wrote it (SCIM name.formatted); null when none was given. */
  formattedName: string | null;
}

/** What updateMember may change; a field left out stays as it is, and attributes are replaced whole. */
export type MemberChanges = Partial<Pick<MemberRow, 'email' | 'firstName' | 'lastName' | 'attributes'>>;

/**
 * A member as created, at version 1, last written when created; without an external id or a display name unless
 * given. passwordHash is a tagged hash from src/service/passwords.ts, or null (no password yet).
 */
export type NewMember = Omit<MemberRow, 'version' | 'updatedAt' | 'externalId' | 'displayName' | 'formattedName'> &
  Partial<Pick<MemberRow, 'externalId' | 'displayName' | 'formattedName'>> & { passwordHash?: string | null };

/**
 * One condition of findMembers: username and email equal ignoring case (as findMembersByLogin folds them), id and
 * externalId exactly; name (the staff console's search) equal to the first name, the last name or both with a
 * space between, ignoring case as usernames.
 */
export interface MemberCondition {
  field: 'id' | 'username' | 'email' | 'externalId' | 'name';
  value: string;
}

/**
 * A member's field as searchMembers compares it. Texts stored empty count as absent. `fullName` is the full name
 * as written (formatted_name), else the first and last names joined with a space; `shownName` is the display name,
 * else `fullName`. isMember and the texts are the member's attributes of those names (the profile's for title,
 * locale…); the `element.` fields are those of one value of a list (a role's id and name, a phone number's or an
 * address's sub-attributes), inside `anyValue` only.
 */
export type MemberSearchField =
  | 'id'
  | 'externalId'
  | 'username'
  | 'email'
  | 'firstName'
  | 'lastName'
  | 'fullName'
  | 'shownName'
  | 'enabled'
  | 'createdAt'
  | 'updatedAt'
  | 'isMember'
  | 'contactNumber'
  | 'labelName'
  | 'organisationId'
  | 'organisationName'
  | 'priceLevelId'
  | 'priceLevelName'
  | ProfileText
  | ElementField;

/** A list of the member's attributes that a search looks into, value by value. */
export type MemberValueList = 'roles' | 'phoneNumbers' | 'addresses';
/** A field of one value of such a list; `element.primary` is a flag, the others texts. */
export type ElementField = `element.${'id' | 'name' | keyof ProfileValue}`;

export type MemberSearchOperator = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

/**
 * What searchMembers asks of a member (searchRoles of a role, without anyValue), in two-valued logic: a comparison
 * with an absent field is false (`ne` is `not eq`, so true). Texts compare by code point, ignoring ASCII case unless `caseExact` (PostgreSQL's lower()
 * folds other letters too, by its locale); co, sw and ew take texts; flags compare eq and ne only; times are epoch
 * milliseconds. `anyValue`: some value of the member's list meets the filter (which compares its `element.` fields only).
 */
export type SearchFilter<Field extends string> =
  | { kind: 'compare'; field: Field; operator: MemberSearchOperator; value: string | number | boolean; caseExact: boolean }
  | { kind: 'present'; field: Field }
  | { kind: 'and' | 'or'; filters: Array<SearchFilter<Field>> }
  | { kind: 'not'; filter: SearchFilter<Field> }
  | { kind: 'constant'; value: boolean }
  | { kind: 'anyValue'; list: MemberValueList; filter: SearchFilter<Field> };

export type MemberFilter = SearchFilter<MemberSearchField>;

/**
 * searchMembers' question: the members meeting `filter` (every member without one), `limit` of them from `offset`
 * on, sorted by `sort` (absent values last, ignoring ASCII case unless caseExact) then by creation and id.
 */
export interface MemberSearch {
  filter?: MemberFilter;
  sort?: { field: Exclude<MemberSearchField, ElementField>; descending: boolean; caseExact: boolean };
  offset: number;
  limit: number;
}

/**
 * One of the association's roles (member types, committees, chapters: CRM4M's pa_webroles), as SCIM shows it as a
 * Group. Its members are the members whose attributes hold a role of its id; each of them also holds its name.
 * A role that members hold but that was never written as a Group (given by the CLI or an import) has version 0 and
 * the times 0, and no external id.
 */
export interface RoleRow {
  id: string;
  name: string;
  /** A provisioning client's key for the role (SCIM externalId); null when none was given. */
  externalId: string | null;
  createdAt: number;
  updatedAt: number;
  version: number;
}

export type RoleSearchField = 'id' | 'name' | 'externalId' | 'createdAt' | 'updatedAt';
export type RoleFilter = SearchFilter<RoleSearchField>;

/** searchRoles' question: the roles meeting `filter` (every role without one), by creation then id. */
export interface RoleSearch {
  filter?: RoleFilter;
  offset: number;
  limit: number;
}

export interface RolePage {
  total: number;
  roles: RoleRow[];
}

/** A page of findMembers: how many members meet the conditions in all, and those of the page. */
export interface MemberPage {
  total: number;
  members: MemberRow[];
}

/**
 * What replaceMember writes: every field a provisioning client sets, when (updatedAt), and a new password hash
 * (null removes the password) or, left out, none.
 */
export type MemberReplacement = Pick<MemberRow, 'username' | 'email' | 'firstName' | 'lastName' | 'enabled' | 'attributes' | 'externalId' | 'displayName' | 'formattedName' | 'updatedAt'> & {
  passwordHash?: string | null;
};

/** What replaceMember did: the member as written, or why nothing was. */
export type MemberReplaced = { ok: true; member: MemberRow } | { ok: false; reason: 'notFound' | 'stale' | 'usernameTaken' };

/**
 * What createMembers did with one member of its list:
 * - `created`: inserted;
 * - `existing`: not inserted, because a member with this id and exactly this username is stored (an earlier
 *   import of the same row, or an earlier member of the same list);
 * - `idTaken`: not inserted, because a member with this id is stored under another username;
 * - `usernameTaken`: not inserted, because the id is free but a stored member (or an earlier member of the list)
 *   has this username, ignoring case as findMembersByLogin folds it.
 */
export type NewMemberOutcome = 'created' | 'existing' | 'idTaken' | 'usernameTaken';

/** A member with its password hash, for sign-in only; nothing else reads the hash. */
export interface MemberCredentials {
  member: MemberRow;
  passwordHash: string | null;
}

/** An origin (scheme://host[:port]) a caller registered as a return address after sign-in or sign-out. */
export interface CallerOriginRow {
  callerId: number;
  origin: string;
  /** The session token is appended to return addresses on this origin (`token=…`). */
  receivesToken: boolean;
  createdAt: number;
}

/**
 * Failure counting for throttles (sign-in per account and per address; later, caller passwords per address),
 * shared by every instance that shares the store.
 */
export interface ThrottleRow {
  key: string;
  failures: number;
  windowStartedAt: number;
  lockedUntil: number | null;
}

export interface SessionRow {
  id: string;
  memberId: string;
  /** Lower-cased, without a leading dot. */
  cookieDomain: string;
  cookieHash: string;
  tokenHash: string;
  /** The token encrypted with the server key, so that AuthenticateCookie can return it. */
  tokenSealed: string;
  /**
   * The login cookie encrypted with the server key, so that a token lookup can return it too; null for
   * sessions created before the store kept it.
   */
  cookieSealed: string | null;
  createdAt: number;
  lastSeenAt: number;
  /** Absolute end of life, fixed at creation. */
  expiresAt: number;
  revokedAt: number | null;
  /** Where the session began, for the member's own list: the client's address and browser, when known. */
  clientAddress: string | null;
  userAgent: string | null;
  /**
   * How the session was opened, written with it and read back by listSessions only: the lookups by a token or
   * login cookie leave it out. Absent too when not known (sessions stored before it was kept, bulk seeded ones).
   */
  through?: SessionThrough;
}

/**
 * How a session was opened: by a partner's call (AuthenticateUser; the caller's name), or on the sign-in page, on
 * its own or for an OpenID client or a SAML SP (its name) whose sign-in brought the member there.
 */
export type SessionThrough = { kind: 'partner' | 'oidc-client' | 'saml-sp'; name: string } | { kind: 'signin-page' };

/**
 * A member's second factor: a TOTP secret (RFC 6238), sealed under the server key. At most one per member;
 * removed with the member.
 */
/**
 * A member's password recovery link, as the store keeps it: the keyed hash of its token only (never the token),
 * one per member, so that a newer link replaces (voids) the older one.
 */
export interface RecoveryTokenRow {
  memberId: string;
  tokenHash: string;
  createdAt: number;
  /** The link works until this time (RECOVERY_TOKEN_TTL after it was made), not at it. */
  expiresAt: number;
}

export interface SecondFactorRow {
  memberId: string;
  secretSealed: string;
  createdAt: number;
  /** Null until the member confirmed it with a first code: only a confirmed factor is asked for. */
  confirmedAt: number | null;
  /** The last time step a code was accepted for: a code of this step or an earlier one is a replay. */
  lastStep: number | null;
}

/** An identity provider that provisions members over SCIM; its bearer token is stored only as a keyed hash. */
export interface ProvisioningClientRow {
  id: number;
  /** Unique; the log names the client with every change it makes. */
  name: string;
  createdAt: number;
}

/** A session together with its member, as verification needs both in one read. */
export interface SessionWithMember {
  session: SessionRow;
  member: MemberRow;
}

/**
 * What one partner call reads (Store.readCall): each part null when the call does not ask for it, because its
 * service's cache holds it.
 */
export interface CallReadQuery {
  /** A throttle's key, whose state is read as getThrottle reads it. */
  throttleKey: string | null;
  /** A security password's hash, whose caller is read as findCallerByPasswordHash reads it. */
  callerPasswordHash: string | null;
  /** A session's token hash, or a login cookie's hash (as findSessionByCookieHash reads it). */
  session: { tokenHash: string } | { cookieHash: string } | null;
}

/** The parts of a CallReadQuery, each null when not asked for or not found. */
export interface CallReadRow {
  throttle: ThrottleRow | null;
  caller: CallerRow | null;
  session: SessionWithMember | null;
}

/** A session's new login cookie (Store.renewSessionCookie), in place of the one whose hash is `currentCookieHash`. */
export interface SessionCookieRenewal {
  currentCookieHash: string;
  cookieHash: string;
  cookieSealed: string;
  now: number;
}

export interface SessionFilter {
  memberId?: string;
  /** Only sessions neither revoked nor past expiresAt at this time. */
  liveAt?: number;
}

/** A relying party, registered through the admin CLI (oidc-clients add). */
export interface OidcClientRow {
  /** The client_id: random, never reused. */
  id: string;
  /** The name the admin gave it; unique. */
  name: string;
  /** The keyed hash of its client_secret; null for a public client, which has none. */
  secretHash: string | null;
  /** Its members are not asked to consent: the membership organisation runs it. */
  firstParty: boolean;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  /** Where logout tokens are posted when a member's session ends; null when it takes none. */
  backchannelLogoutUri: string | null;
  createdAt: number;
}

/** A signing key of ID tokens: its private JWK, sealed under the server key. */
export interface OidcKeyRow {
  kid: string;
  privateJwkSealed: string;
  createdAt: number;
  /** When a newer key took its place; null for the key that signs now. */
  retiredAt: number | null;
}

/** One record of oidc-provider (a grant, a session, an interaction, a code, a token), as its adapter saves it. */
export interface OidcPayloadRow {
  /** oidc-provider's model name: Grant, Session, Interaction, AuthorizationCode, AccessToken, RefreshToken… */
  model: string;
  id: string;
  /** The record as JSON text. */
  payload: string;
  /** The grant it belongs to, if any (a grant's own record has its id here): revoking a grant deletes them all. */
  grantId: string | null;
  /** A session's uid, which stays while its id changes on every sign-in. */
  uid: string | null;
  /** Null when it never expires. */
  expiresAt: number | null;
  /** When a code or refresh token was used; a second use revokes its grant. */
  consumedAt: number | null;
}

/**
 * An OpenID session of a member session: signing in through a client opens the member's session on the sign-in
 * page, and the OpenID session lives only as long as it does. A link is deleted with its member session.
 */
export interface OidcSessionLinkRow {
  /** The OpenID session's uid. */
  uid: string;
  memberSessionId: string;
  memberId: string;
  /** The member session's token, sealed: checking it is checking the member session, as AuthenticateToken does. */
  tokenSealed: string;
}

/** The links of one member session, or of every session of a member. */
export type OidcSessionLinkFilter = { memberSessionId: string } | { memberId: string };

/** A SAML service provider, registered through the admin CLI (saml-sps add). */
export interface SamlSpRow {
  /** Random, never reused. */
  id: string;
  /** The name the admin gave it; unique. */
  name: string;
  /** Its metadata's entityID; unique: the Issuer of its requests finds it. */
  entityId: string;
  /** Its metadata XML exactly as given: the identity provider reads endpoints and certificates from it. */
  metadataXml: string;
  /** Its settings (NameID format, attributes, signing, encryption) as JSON text, which the service reads. */
  settings: string;
  createdAt: number;
}

/** A signing key of the SAML identity provider: its PKCS#8 private key sealed under the server key, and its certificate. */
export interface SamlKeyRow {
  kid: string;
  privateKeySealed: string;
  /** The self-signed certificate, PEM, published in the metadata. */
  certificate: string;
  createdAt: number;
  /** When it began to sign; null while it is only published (the next key). */
  activatedAt: number | null;
  /** When a newer key took its place; null until then. */
  retiredAt: number | null;
}

/** An SP taking part in a member session: the member signed in to it through the identity provider. */
export interface SamlParticipantRow {
  memberSessionId: string;
  memberId: string;
  spId: string;
  /** The NameID the SP was given, and its format: a LogoutRequest names the member by them. */
  nameId: string;
  nameIdFormat: string;
  sessionIndex: string;
  createdAt: number;
}

/** The participants of one member session, of every session of a member, or those an SP knows by one NameID. */
export type SamlParticipantFilter = { memberSessionId: string } | { memberId: string } | { spId: string; nameId: string };

/** A pending SAML request (an AuthnRequest waiting for the sign-in, a logout being propagated), by its handle. */
export interface SamlRequestRow {
  /** Random: what the browser carries between the steps. */
  handle: string;
  spId: string;
  /** The SAML message's ID; unique per SP, so that a request sent again is a replay. */
  requestId: string;
  kind: 'authn' | 'logout';
  /** What the flow keeps of the request, as JSON, sealed under the server key. */
  payloadSealed: string;
  createdAt: number;
  expiresAt: number;
  /** When the flow finished with it; it is never used again. */
  consumedAt: number | null;
}

/**
 * One security-relevant event (src/service/events.ts): its kind and who it concerns, kept EVENTS_RETENTION_DAYS.
 * Every field besides the first four is null when it is not known or does not apply; none holds a secret.
 */
export interface EventRow {
  /** Sorts as the events were recorded on one instance: the time, then a counter (src/service/event-ids.ts). */
  id: string;
  time: number;
  type: string;
  /** Who did it: a member, a staff member, the CLI, a provisioning client, an import, a partner, the system… */
  actorKind: string;
  actorId: string | null;
  memberId: string | null;
  clientAddress: string | null;
  device: string | null;
  /** The partner, OpenID client or SAML SP through which it happened. */
  via: string | null;
  requestId: string | null;
  outcome: string | null;
  reason: string | null;
}

/** Which events to list, newest first: one member's, of one type, since a time (inclusive), at most `limit`. */
export interface EventFilter {
  memberId?: string;
  type?: string;
  since?: number;
  limit: number;
}

/** Where an export page starts: after this event in time order, or from `since` on for the first page. */
export interface EventCursor {
  time: number;
  id: string;
}

/** What a staff member may do in the staff console: support helps members; admin also manages the service's partners and staff. */
export type StaffRole = 'support' | 'admin';

/** A member's staff role (src/service/staff.ts): at most one per member, removed with the member. */
export interface StaffRoleRow {
  memberId: string;
  role: StaffRole;
  grantedAt: number;
}

/** Whether a passkey lives on one device or is synced between devices (WebAuthn's backup eligibility). */
export type PasskeyDeviceType = 'singleDevice' | 'multiDevice';

/** A member's passkey: a WebAuthn credential, of which only the public key is held. */
export interface PasskeyRow {
  /** The credential's id as the authenticator made it, base64url. */
  id: string;
  memberId: string;
  /** The credential's public key (COSE), base64url. */
  publicKey: string;
  /** The signature counter last seen: a sign-in must show a higher one, unless the authenticator keeps none (0). */
  counter: number;
  /** How the browser may reach the authenticator (internal, hybrid, usb…), as it said when the passkey was added. */
  transports: string[];
  /** Fixed for the credential's life: a sign-in claiming the other one is refused. */
  deviceType: PasskeyDeviceType;
  /** Whether the passkey is backed up (synced) now, as the last ceremony said. */
  backedUp: boolean;
  /** The member's name for it. */
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** What a passkey's use changes: the counter (written only while it is still `previousCounter`), the backup flag, the time. */
export interface PasskeyUse {
  previousCounter: number;
  counter: number;
  backedUp: boolean;
  usedAt: number;
}

/**
 * A WebAuthn challenge handed to one browser: `id` is the keyed hash of the nonce that browser holds in a
 * cookie, so that the row answers only that browser. Taken once (deleted as it is read), good until expiresAt.
 */
export interface PasskeyChallengeRow {
  id: string;
  /** `register`: adding a passkey for memberId; `sign-in`: signing in with one (no member yet). */
  purpose: 'register' | 'sign-in';
  memberId: string | null;
  challenge: string;
  expiresAt: number;
}
