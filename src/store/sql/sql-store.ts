import type { Store } from '../store.js';
import { callReadMethods } from './call-reads.js';
import { callerMethods } from './callers.js';
import { storeError, type SqlDriver } from './driver.js';
import { eventMethods } from './events.js';
import { memberSearchMethods } from './member-search.js';
import { memberMethods } from './members.js';
import { oidcMethods } from './oidc.js';
import { passkeyMethods } from './passkeys.js';
import { provisioningClientMethods } from './provisioning-clients.js';
import { purgeMethods } from './purge.js';
import { recoveryTokenMethods } from './recovery-tokens.js';
import { roleMethods } from './roles.js';
import { samlMethods } from './saml.js';
import { staffMethods } from './staff.js';
import { secondFactorMethods } from './second-factors.js';
import { sessionMethods } from './sessions.js';
import { throttleMethods } from './throttles.js';

const PING_SQL = 'SELECT 1';
const CLAIM_SETTING_SQL = 'INSERT INTO deployment_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING';
const SETTING_SQL = 'SELECT value FROM deployment_settings WHERE name = $1';

/** The store's life cycle and the deployment settings. */
function storeMethods(db: SqlDriver) {
  return {
    migrate: () => db.migrate(),
    close: () => db.close(),

    async ping() {
      await db.row(PING_SQL);
    },

    // Read first: a setting recorded already needs no write, so that a database taking none at the moment (locked
    // by another program, read-only) still opens for reading, as the migrations let it.
    async claimSetting(name, value) {
      const recorded = await db.row<{ value: string }>(SETTING_SQL, [name]);
      if (recorded) return recorded.value;
      await db.changes(CLAIM_SETTING_SQL, [name, value]);
      return ((await db.row<{ value: string }>(SETTING_SQL, [name])) as { value: string }).value;
    },

    async setting(name) {
      return (await db.row<{ value: string }>(SETTING_SQL, [name]))?.value ?? null;
    },
  } satisfies Partial<Store>;
}

/**
 * The class below puts the Store's methods on each instance, from the jobs' files; this declaration, merged with
 * the class, gives its instances their types. The object of methods is typed Store, so that a method missing
 * from the jobs' files does not compile.
 */
export interface SqlStore extends Store {}

/**
 * The store over a SQL database: every method written once, its SQL in the files of its job (callers, members,
 * member search, sessions, throttles, second factors, provisioning clients, purge, OpenID, recovery tokens, SAML, events, staff, passkeys), run by the dialect's
 * driver (src/store/sql/driver.ts), which holds only what the dialects do differently: src/store/sqlite/
 * (embedded) and src/store/postgres/ (shared by several instances). The errors that mean the database cannot be used are mapped here, once (withUnavailableErrors).
 */
export class SqlStore {
  constructor(driver: SqlDriver) {
    const methods: Store = {
      ...storeMethods(driver),
      ...callerMethods(driver),
      ...memberMethods(driver),
      ...memberSearchMethods(driver),
      ...roleMethods(driver),
      ...sessionMethods(driver),
      ...callReadMethods(driver),
      ...throttleMethods(driver),
      ...secondFactorMethods(driver),
      ...provisioningClientMethods(driver),
      ...purgeMethods(driver),
      ...oidcMethods(driver),
      ...recoveryTokenMethods(driver),
      ...samlMethods(driver),
      ...eventMethods(driver),
      ...staffMethods(driver),
      ...passkeyMethods(driver),
    };
    Object.assign(this, withUnavailableErrors(driver, methods));
  }
}

/**
 * The methods, each throwing StoreUnavailableError where the driver's error means its database cannot be used as
 * it is (a full disk, read-only, locked…), so that every caller can tell that condition from a fault: the one
 * place the store maps those errors, for both dialects.
 */
function withUnavailableErrors(driver: SqlDriver, methods: Store): Store {
  const wrapped = Object.entries(methods).map(([name, method]: [string, (...args: unknown[]) => Promise<unknown>]) => [
    name,
    async (...args: unknown[]) => {
      try {
        return await method(...args);
      } catch (error) {
        throw storeError(driver, error);
      }
    },
  ]);
  return Object.fromEntries(wrapped) as Store;
}
