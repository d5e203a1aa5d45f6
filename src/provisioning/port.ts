/**
 * What the SCIM layer needs from the rest of the service, and nothing more: the members as provisioning sees them,
 * and the provisioning clients' tokens. The wiring implements it over the member service and the store; the
 * router (router.ts) only translates SCIM to these calls and back.
 */
import type { EventContext, MemberAttributes, MemberFilter, MemberSearch, RoleFields, RoleFilter, RolePage, RoleRow, RoleWrite } from '../service/index.js';

/** The fields of a member that SCIM reads and writes. */
export interface MemberData {
  /** The provisioning client's own key for the member (SCIM `externalId`), compared exactly; null when none. */
  externalId: string | null;
  username: string;
  /** The member's one email address (SCIM's primary email); empty when none. */
  email: string;
  firstName: string;
  lastName: string;
  /** null when none was given: SCIM then shows the first and last names. */
  displayName: string | null;
  /** SCIM name.formatted as a client wrote it; null when none was given: SCIM then shows the first and last names. */
  formattedName: string | null;
  enabled: boolean;
  attributes: MemberAttributes;
}

/** A member as provisioning reads it. Times are epoch milliseconds. */
export interface ProvisionedMember extends MemberData {
  /** The SCIM `id`: the member's id, issued by the service on create. */
  id: string;
  createdAt: number;
  /** When any field last changed. */
  updatedAt: number;
  /** Grows by at least one with every change of the member, whoever made it: SCIM's ETag (`W/"version"`). */
  version: number;
}

/** What a create or a replace writes: every field (a replace writes them all), and a password or not. */
export interface MemberFields extends MemberData {
  /** A new password (checked and hashed by the service), null to remove the password; left out, it stays as it is. */
  password?: string | null;
}

/** Members meeting the filter (every member without one), sorted (by creation without a sort). */
export interface MemberQuery {
  filter?: MemberFilter;
  sort?: MemberSearch['sort'];
}

export interface MemberPage {
  /** How many members meet the query, on all pages. */
  total: number;
  /** At most `limit` of them from `offset` on, in an order that stays put between calls (creation, then id). */
  members: ProvisionedMember[];
}

/** What a create or a replace did. `invalid` carries the service's reason, shown to the client. */
export type WriteResult =
  | { ok: true; member: ProvisionedMember }
  | { ok: false; reason: 'notFound' | 'stale' | 'userNameTaken' }
  | { ok: false; reason: 'invalid'; detail: string };

/** `by` in the writes: the provisioning client and the request, for the members' events. */
export interface ScimMembers {
  list(query: MemberQuery, page: { offset: number; limit: number }): Promise<MemberPage>;
  get(id: string): Promise<ProvisionedMember | null>;
  /** Issues the id. `userNameTaken` when another member has this username, ignoring case. */
  create(fields: MemberFields, by?: EventContext): Promise<WriteResult>;
  /**
   * Writes every field at once, if the member's version is still `current`'s (the member as read; `stale`
   * otherwise), and moves the version on. A password given is set with it. A member disabled (enabled false) has
   * its cached sessions forgotten, as MemberService.setEnabled does, so that they stop verifying at once. Fields
   * that, as the service stores them (texts trimmed, empty values left out), are `current`'s already, without a
   * password, write nothing: the answer is `current` itself, at its version.
   */
  replace(current: ProvisionedMember, fields: MemberFields, by?: EventContext): Promise<WriteResult>;
  /** Removes the member and its sessions; with `expectedVersion`, only if its version is still that. */
  remove(id: string, expectedVersion?: number, by?: EventContext): Promise<'removed' | 'notFound' | 'stale'>;
}

/**
 * The association's roles as Groups (src/service/roles.ts): a role's members are the members who hold it, and
 * giving or taking it changes each member. Member ids are as SCIM shows them. `invalid` carries the reason shown.
 */
export interface ScimGroups {
  list(filter: RoleFilter | undefined, page: { offset: number; limit: number }): Promise<RolePage>;
  get(id: string): Promise<RoleRow | null>;
  /** The members who hold the role, a page at a time. */
  holders(id: string, page: { offset: number; limit: number }): Promise<{ total: number; members: ProvisionedMember[] }>;
  create(fields: RoleFields, memberIds: readonly string[], by?: EventContext): Promise<RoleWrite>;
  /** With `memberIds`, the holders become exactly those members. */
  replace(current: RoleRow, fields: RoleFields, memberIds: readonly string[] | undefined, by?: EventContext): Promise<RoleWrite>;
  changeMembers(role: RoleRow, add: readonly string[], remove: readonly string[], by?: EventContext): Promise<RoleWrite>;
  remove(id: string, by?: EventContext): Promise<RoleWrite | { ok: false; reason: 'notFound' }>;
}

/**
 * Whose bearer token it was: a provisioning client's (by name), or none. Wrong tokens are counted per client
 * address, as wrong security passwords are; an address that sent too many is refused for a while
 * (`retryAfterSeconds`), before its token is looked at.
 */
export type ClientCheck = { ok: true; client: string } | { ok: false; retryAfterSeconds: number | null };

export interface ProvisioningClients {
  /** Whether any provisioning client exists: SCIM is on only then. */
  anyExist(): Promise<boolean>;
  authenticate(token: string, clientAddress: string): Promise<ClientCheck>;
}
