import { randomBytes } from 'node:crypto';
import { serviceSettings } from '../../src/compose/service-settings.js';
import { loadConfig } from '../../src/config/config.js';
import type { Clock } from '../../src/service/clock.js';
import { createServices, type ServiceSettings, type Services, type SessionEvents, type SigninSettings } from '../../src/service/index.js';
import type { SessionPolicy } from '../../src/service/sessions.js';
import type { Store } from '../../src/store/store.js';
import { tempSqliteStore } from './temp-store.js';

/**
 * The settings of services under test: the configuration's defaults, as the server maps them, except
 * CACHE_TTL_MS=0, so that a test sees every change in the store at once unless it is about the cache.
 */
const TEST_SETTINGS = serviceSettings(loadConfig({ CACHE_TTL_MS: '0' }));

/** What a test sets itself: any setting, and any part of the session and sign-in ones. */
export interface SettingChanges {
  session?: Partial<SessionPolicy>;
  memberIdFormat?: ServiceSettings['memberIdFormat'];
  cacheTtlMs?: number;
  callerThrottle?: ServiceSettings['callerThrottle'];
  signin?: Partial<SigninSettings>;
  formsCookie?: ServiceSettings['formsCookie'];
  recordEvents?: boolean;
}

/** The test settings with these changes: a complete settings object. */
export function testSettings(changes: SettingChanges = {}): ServiceSettings {
  const { session, signin, ...others } = changes;
  return {
    ...TEST_SETTINGS,
    ...others,
    session: { ...TEST_SETTINGS.session, ...session },
    signin: { ...TEST_SETTINGS.signin, ...signin },
  };
}

export interface TestServiceOptions extends SettingChanges {
  /** The server key: a new one unless given (instances of one deployment share theirs). */
  secretKey?: Buffer;
  clock?: Clock;
  events?: SessionEvents;
}

/** Services over this store, with the test settings and the changes given. */
export function servicesOver(store: Store, options: TestServiceOptions = {}): Services {
  const { secretKey = randomBytes(32), clock, events, ...changes } = options;
  return createServices({ store, secretKey, settings: testSettings(changes), clock, events });
}

/** Services over a fresh SQLite store in its own temporary directory; cleanup() closes the store and removes it. */
export async function tempServices(options: TestServiceOptions = {}): Promise<{ services: Services; store: Store; cleanup: () => Promise<void> }> {
  const { store, cleanup } = await tempSqliteStore();
  return { services: servicesOver(store, options), store, cleanup };
}
