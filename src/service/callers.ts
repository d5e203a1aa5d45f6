import type { CallerOriginRow, CallerPasswordRow, CallerRow, Store } from '../store/store.js';
import type { CallRead } from './call-read.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';
import { CLI_ACTOR, type EventContext, type EventService } from './events.js';
import { normalizeOrigin } from './return-urls.js';
import { randomSecret, type Secrets } from './secrets.js';
import type { ShortLivedCache } from './short-lived-cache.js';

const MIN_PASSWORD_LENGTH = 6;

export interface IssuedCallerPassword {
  caller: CallerRow;
  /** Shown once: only its hash is stored. */
  password: string;
  passwordId: number;
}

/**
 * Calling applications (partner sites) and their security passwords. The callers of verified passwords are
 * cached for CACHE_TTL_MS (`cache`): a partner calls on every page view, with the same password each time.
 * Every change is recorded (site-added, site-changed with what changed, site-removed: outcome `partner`), by
 * whoever `by` says: the CLI unless told.
 */
export class CallerService {
  constructor(
    private readonly store: Store,
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    private readonly cache: ShortLivedCache<CallerRow>,
    private readonly events: EventService,
  ) {}

  /** Registers a caller with a generated password, or with the old service's password when migrating. */
  async add(name: string, password?: string, by: EventContext = { actor: CLI_ACTOR }): Promise<IssuedCallerPassword> {
    if (await this.store.getCallerByName(name)) throw new ServiceError('CALLER_EXISTS', name);
    const issued = this.#choosePassword(password);
    await this.#ensureUnused(issued);
    const caller = await this.store.createCaller(name, this.clock());
    const added = await this.#addPassword(caller, issued);
    this.#record('site-added', name, by);
    return added;
  }

  /** Adds a new password; the old ones stay valid until retired, so partners can switch over. */
  async rotate(name: string, options: { password?: string; retireOthers?: boolean } = {}, by: EventContext = { actor: CLI_ACTOR }): Promise<IssuedCallerPassword> {
    const caller = await this.#get(name);
    const issued = this.#choosePassword(options.password);
    await this.#ensureUnused(issued);
    const result = await this.#addPassword(caller, issued);
    if (options.retireOthers) {
      await this.store.deleteCallerPasswords(caller.id, result.passwordId);
      this.cache.clear();
    }
    this.#record('site-changed', name, by, options.retireOthers ? 'new-password-only' : 'new-password');
    return result;
  }

  /** Retires every password except the newest. */
  async retireOldPasswords(name: string, by: EventContext = { actor: CLI_ACTOR }): Promise<number> {
    const caller = await this.#get(name);
    const passwords = await this.store.listCallerPasswords(caller.id);
    const newest = passwords.reduce<CallerPasswordRow | undefined>((a, b) => (!a || b.id > a.id ? b : a), undefined);
    const retired = newest ? await this.store.deleteCallerPasswords(caller.id, newest.id) : 0;
    this.cache.clear();
    this.#record('site-changed', name, by, 'old-passwords-retired');
    return retired;
  }

  async list(): Promise<Array<CallerRow & { passwords: CallerPasswordRow[]; origins: CallerOriginRow[] }>> {
    const callers = await this.store.listCallers();
    return Promise.all(
      callers.map(async (c) => ({
        ...c,
        passwords: await this.store.listCallerPasswords(c.id),
        origins: await this.store.listCallerOrigins(c.id),
      })),
    );
  }

  /**
   * Allows return addresses on this origin after sign-in and sign-out; with receivesToken, they also get the
   * session token. Registering an origin again replaces its registration, which is how the flag changes.
   */
  async addOrigin(name: string, origin: string, options: { receivesToken?: boolean } = {}, by: EventContext = { actor: CLI_ACTOR }): Promise<CallerOriginRow> {
    const caller = await this.#get(name);
    const row: CallerOriginRow = {
      callerId: caller.id,
      origin: validOrigin(origin),
      receivesToken: options.receivesToken ?? false,
      createdAt: this.clock(),
    };
    await this.store.removeCallerOrigin(caller.id, row.origin);
    await this.store.addCallerOrigin(row);
    this.#record('site-changed', name, by, 'origin-allowed');
    return row;
  }

  /** CALLER_ORIGIN_NOT_FOUND when the caller had not registered this origin. */
  async removeOrigin(name: string, origin: string, by: EventContext = { actor: CLI_ACTOR }): Promise<void> {
    const caller = await this.#get(name);
    const normalized = validOrigin(origin);
    if (!(await this.store.removeCallerOrigin(caller.id, normalized))) throw new ServiceError('CALLER_ORIGIN_NOT_FOUND', normalized);
    this.#record('site-changed', name, by, 'origin-removed');
  }

  /** Every caller's registered origins, or one caller's, with the caller's name. */
  async listOrigins(name?: string): Promise<Array<CallerOriginRow & { caller: string }>> {
    const callers = name === undefined ? await this.store.listCallers() : [await this.#get(name)];
    const names = new Map(callers.map((c) => [c.id, c.name]));
    const rows = await this.store.listCallerOrigins(name === undefined ? undefined : callers[0]?.id);
    return rows.map((row) => ({ ...row, caller: names.get(row.callerId) ?? '' }));
  }

  async setEnabled(name: string, enabled: boolean, by: EventContext = { actor: CLI_ACTOR }): Promise<CallerRow> {
    const caller = await this.#get(name);
    await this.store.setCallerEnabled(caller.id, enabled);
    this.cache.clear();
    this.#record('site-changed', name, by, enabled ? 'enabled' : 'disabled');
    return { ...caller, enabled };
  }

  async remove(name: string, by: EventContext = { actor: CLI_ACTOR }): Promise<void> {
    await this.store.deleteCaller((await this.#get(name)).id);
    this.cache.clear();
    this.#record('site-removed', name, by);
  }

  #record(type: 'site-added' | 'site-changed' | 'site-removed', name: string, by: EventContext, reason?: string): void {
    this.events.record({ ...by, type, via: name, outcome: 'partner', reason });
  }

  /** Asks the call's one read (`read`) for this password's caller, unless the cache holds it at `now`. */
  ask(securityPassword: string | null, now: number, read: CallRead): void {
    if (securityPassword && this.cache.get(securityPassword, now) === undefined) {
      read.askCaller(this.secrets.hash('caller-password', securityPassword), this.cache.generation);
    }
  }

  /** The enabled caller this security password belongs to; the legacy fault otherwise. Read by the call's one read when it was asked for there (ask). */
  async verify(securityPassword: string | null, read?: CallRead): Promise<CallerRow> {
    const caller = securityPassword
      ? await this.cache.fetch(securityPassword, this.clock(), async () => {
          const asked = await read?.part('caller', this.cache.generation);
          return asked !== undefined ? asked : this.store.findCallerByPasswordHash(this.secrets.hash('caller-password', securityPassword));
        })
      : null;
    if (!caller || !caller.enabled) throw new ServiceError('INVALID_SECURITY_PASSWORD');
    return caller;
  }

  async #get(name: string): Promise<CallerRow> {
    const caller = await this.store.getCallerByName(name);
    if (!caller) throw new ServiceError('CALLER_NOT_FOUND', name);
    return caller;
  }

  #choosePassword(supplied: string | undefined): string {
    if (supplied === undefined) return randomSecret();
    if (supplied.length < MIN_PASSWORD_LENGTH) throw new ServiceError('CALLER_PASSWORD_TOO_SHORT');
    return supplied;
  }

  /** One password identifies one caller, so a hash may belong to one caller only. */
  async #ensureUnused(password: string): Promise<void> {
    if (await this.store.findCallerByPasswordHash(this.secrets.hash('caller-password', password))) {
      throw new ServiceError('CALLER_EXISTS', 'this password is already in use by a caller');
    }
  }

  async #addPassword(caller: CallerRow, password: string): Promise<IssuedCallerPassword> {
    const row = await this.store.addCallerPassword(caller.id, this.secrets.hash('caller-password', password), this.clock());
    return { caller, password, passwordId: row.id };
  }
}

/**
 * The origin as stored and looked up. Callers of the service (the CLI) validate first and explain the
 * format; reaching this throw is a programming error.
 */
function validOrigin(origin: string): string {
  const normalized = normalizeOrigin(origin);
  if (normalized === null) throw new RangeError(`Not an http(s) origin such as https://partner.example.org: ${origin}`);
  return normalized;
}
