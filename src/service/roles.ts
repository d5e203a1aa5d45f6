import { randomUUID } from 'node:crypto';
import type { MemberAttributes, MemberPage, MemberRow, RoleFilter, RolePage, RoleRow, Store } from '../store/store.js';
import { StoreVersionConflictError } from '../store/store.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';
import type { EventContext, EventService } from './events.js';
import { validateAttributes } from './member-attributes.js';
import { memberIdLookup, type MemberIdFormat } from './members.js';
import type { SessionService } from './sessions.js';

/** A role's fields as a provisioning client writes them. */
export interface RoleFields {
  name: string;
  externalId: string | null;
}

export type RoleWrite = { ok: true; role: RoleRow } | { ok: false; reason: 'notFound' | 'stale' } | { ok: false; reason: 'invalid'; detail: string };

/** Members changed a page at a time: a role's holders are read this many at once. */
const HOLDERS_PER_PAGE = 200;
/** Tries of one member's write, when others change the member meanwhile. */
const MAX_ATTEMPTS = 8;
const MAX_NAME_LENGTH = 256;

type Roles = NonNullable<MemberAttributes['roles']>;

const invalid = (detail: string): RoleWrite => ({ ok: false, reason: 'invalid', detail });

/**
 * The association's roles as provisioning clients write them (SCIM Groups): a role, its name, and the members who
 * hold it. A member holds a role in its attributes (`roles`, as the CLI and the import give them), so that a role
 * given or taken here is in the member's next pa_webroles, iBridge result, OpenID membership claim and SAML roles
 * attribute: every change forgets the cached sessions and members, as the other member writes do, and is recorded
 * as the member's member-changed event (its attributes) with the client as actor. A role's name is each holder's
 * name of it: renaming the role renames it on every holder.
 */
export class RoleService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sessions: Pick<SessionService, 'forgetCached'>,
    private readonly idFormat: MemberIdFormat,
    private readonly events: EventService,
  ) {}

  list(filter: RoleFilter | undefined, page: { offset: number; limit: number }): Promise<RolePage> {
    return this.store.searchRoles({ ...(filter === undefined ? {} : { filter }), ...page });
  }

  get(id: string): Promise<RoleRow | null> {
    return this.store.getRole(id);
  }

  /** The members who hold the role, a page at a time, by creation. */
  holders(id: string, page: { offset: number; limit: number }): Promise<MemberPage> {
    return this.store.searchMembers({ filter: { kind: 'anyValue', list: 'roles', filter: { kind: 'compare', field: 'element.id', operator: 'eq', value: id, caseExact: true } }, ...page });
  }

  /** A new role with an id of its own, given to the members listed (ids as SCIM shows them). */
  async create(fields: RoleFields, memberIds: readonly string[], by: EventContext = {}): Promise<RoleWrite> {
    const checked = checkedFields(fields);
    if (typeof checked === 'string') return invalid(checked);
    const members = await this.#members(memberIds);
    if (typeof members === 'string') return invalid(members);
    const role = await this.store.createRole({ id: randomUUID(), ...checked, createdAt: this.clock() });
    return this.#given(role, members, [], by);
  }

  /**
   * Writes the role's name and external id if it is still at the version read (`current`); with `memberIds`, its
   * holders become exactly those members. A new name is given to every holder.
   */
  async replace(current: RoleRow, fields: RoleFields, memberIds: readonly string[] | undefined, by: EventContext = {}): Promise<RoleWrite> {
    const checked = checkedFields(fields);
    if (typeof checked === 'string') return invalid(checked);
    const wanted = memberIds === undefined ? undefined : await this.#members(memberIds);
    if (typeof wanted === 'string') return invalid(wanted);
    let role = current;
    if (checked.name !== current.name || checked.externalId !== current.externalId || current.version === 0) {
      const replaced = await this.store.replaceRole(current.id, { ...checked, updatedAt: this.clock() }, current.version);
      if (typeof replaced === 'string') return { ok: false, reason: replaced };
      role = replaced;
    }
    const holders = await this.#holderIds(role.id);
    if (role.name !== current.name) {
      const renamed = await this.#given(role, [...holders], [], by);
      if (!renamed.ok) return renamed;
    }
    if (wanted === undefined) return { ok: true, role };
    const wantedIds = new Set(wanted);
    return this.#given(role, wanted.filter((id) => !holders.has(id)), [...holders].filter((id) => !wantedIds.has(id)), by);
  }

  /** Gives the role to the members of `add` and takes it from those of `remove` (ids as SCIM shows them). */
  async changeMembers(role: RoleRow, add: readonly string[], remove: readonly string[], by: EventContext = {}): Promise<RoleWrite> {
    const adding = await this.#members(add);
    if (typeof adding === 'string') return invalid(adding);
    const removing = remove.map((id) => memberIdLookup(id, this.idFormat));
    return this.#given(role, adding, removing, by);
  }

  /** Takes the role from every holder, then forgets it as a Group; `notFound` when nobody held it and it was never written. */
  async remove(id: string, by: EventContext = {}): Promise<RoleWrite | { ok: false; reason: 'notFound' }> {
    const role = await this.store.getRole(id);
    if (role === null) return { ok: false, reason: 'notFound' };
    const taken = await this.#given(role, [], [...(await this.#holderIds(id))], by);
    if (taken.ok) await this.store.deleteRole(id);
    return taken;
  }

  async #holderIds(id: string): Promise<Set<string>> {
    const ids = new Set<string>();
    for (let offset = 0; ; offset += HOLDERS_PER_PAGE) {
      const page = await this.holders(id, { offset, limit: HOLDERS_PER_PAGE });
      for (const member of page.members) ids.add(member.id);
      if (page.members.length < HOLDERS_PER_PAGE) return ids;
    }
  }

  /** The members' ids as stored, each checked to exist; or why not. */
  async #members(ids: readonly string[]): Promise<string[] | string> {
    const lookups = [...new Set(ids.map((id) => memberIdLookup(id, this.idFormat)))];
    const found = new Set((await this.store.getMembers(lookups)).map((member) => member.id));
    const missing = lookups.find((id) => !found.has(id));
    return missing === undefined ? lookups : `no member has the id "${missing}"`;
  }

  /**
   * The role (by its current name) given to the members of `add`, taken from those of `remove`; each member once.
   * When a member changed, the role's version moves on too (its members are part of it), unless someone wrote the
   * role meanwhile, whose version then stands.
   */
  async #given(role: RoleRow, add: readonly string[], remove: readonly string[], by: EventContext): Promise<RoleWrite> {
    const held = { id: role.id, name: role.name };
    const writes = [
      // A holder keeps the role where it was among its roles, under the role's name.
      ...add.map((id) => [id, (roles: Roles) => (roles.some((each) => each.id === role.id) ? roles.map((each) => (each.id === role.id ? held : each)) : [...roles, held])] as const),
      ...remove.map((id) => [id, (roles: Roles) => roles.filter((each) => each.id !== role.id)] as const),
    ];
    let changed = 0;
    try {
      for (const [id, change] of writes) if (await this.#changeRoles(id, change, by)) changed++;
    } catch (error) {
      if (error instanceof ServiceError) return invalid(error.message);
      // A member that kept changing through every try.
      if (error instanceof StoreVersionConflictError) return { ok: false, reason: 'stale' };
      throw error;
    } finally {
      if (writes.length > 0) this.sessions.forgetCached();
    }
    if (changed === 0) return { ok: true, role };
    const moved = await this.store.replaceRole(role.id, { name: role.name, externalId: role.externalId, updatedAt: this.clock() }, role.version);
    return { ok: true, role: typeof moved === 'string' ? role : moved };
  }

  /**
   * One member's roles changed, on the version read, read again when someone else wrote the member meanwhile;
   * whether the member changed.
   */
  async #changeRoles(id: string, change: (roles: Roles) => Roles, by: EventContext): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const member: MemberRow | null = await this.store.getMember(id);
      if (member === null) return false;
      const before = member.attributes.roles ?? [];
      const after = change(before);
      if (JSON.stringify(after) === JSON.stringify(before)) return false;
      const attributes = validateAttributes({ ...member.attributes, roles: after });
      try {
        await this.store.updateMember(id, { attributes }, member.version, this.clock());
        this.events.record({ ...by, type: 'member-changed', memberId: id, outcome: 'attributes' });
        return true;
      } catch (error) {
        if (!(error instanceof StoreVersionConflictError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }
}

/** The fields trimmed, or why they cannot be kept. */
function checkedFields({ name, externalId }: RoleFields): RoleFields | string {
  const trimmed = name.trim();
  if (!trimmed) return 'a Group needs a displayName';
  if (trimmed.length > MAX_NAME_LENGTH) return `displayName is longer than ${MAX_NAME_LENGTH} characters`;
  const external = externalId?.trim() || null;
  if (external !== null && external.length > MAX_NAME_LENGTH) return `externalId is longer than ${MAX_NAME_LENGTH} characters`;
  return { name: trimmed, externalId: external };
}
