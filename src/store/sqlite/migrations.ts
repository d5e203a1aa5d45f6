import type Database from 'better-sqlite3';
import { allApplied, refuseNewerSchema, type Migration } from '../migration.js';


/**
 * Append only: a released migration is never edited, a change is a new version.
 * Epoch milliseconds are declared BIGINT (INTEGER affinity here) because they overflow a PostgreSQL INTEGER,
 * and `id TEXT NOT NULL PRIMARY KEY` spells out NOT NULL because SQLite lets a non-INTEGER primary key be NULL.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'callers, caller passwords, members and sessions',
    sql: `
      CREATE TABLE callers (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE,
        enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        created_at BIGINT NOT NULL
      );
      CREATE TABLE caller_passwords (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        caller_id INTEGER NOT NULL REFERENCES callers (id) ON DELETE CASCADE,
        password_hash TEXT NOT NULL UNIQUE,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX caller_passwords_caller_id ON caller_passwords (caller_id);
      CREATE TABLE members (
        id TEXT NOT NULL PRIMARY KEY,
        username TEXT NOT NULL UNIQUE,
        email TEXT NOT NULL,
        first_name TEXT NOT NULL,
        last_name TEXT NOT NULL,
        enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        created_at BIGINT NOT NULL
      );
      CREATE TABLE sessions (
        id TEXT NOT NULL PRIMARY KEY,
        member_id TEXT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
        cookie_domain TEXT NOT NULL,
        cookie_hash TEXT NOT NULL UNIQUE,
        token_hash TEXT NOT NULL UNIQUE,
        token_sealed TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        last_seen_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        revoked_at BIGINT
      );
      CREATE INDEX sessions_member_id ON sessions (member_id);
    `,
  },
  {
    version: 2,
    name: 'member password hashes, caller origins and throttles',
    // lower() folds ASCII only in SQLite; the expression indexes serve findMembersByLogin's lower(...) = lower(?).
    sql: `
      ALTER TABLE members ADD COLUMN password_hash TEXT;
      CREATE INDEX members_lower_username ON members (lower(username));
      CREATE INDEX members_lower_email ON members (lower(email));
      CREATE TABLE caller_origins (
        caller_id INTEGER NOT NULL REFERENCES callers (id) ON DELETE CASCADE,
        origin TEXT NOT NULL,
        receives_token INTEGER NOT NULL CHECK (receives_token IN (0, 1)),
        created_at BIGINT NOT NULL,
        PRIMARY KEY (caller_id, origin)
      );
      CREATE INDEX caller_origins_origin ON caller_origins (origin);
      CREATE TABLE throttles (
        key TEXT NOT NULL PRIMARY KEY,
        failures INTEGER NOT NULL,
        window_started_at BIGINT NOT NULL,
        locked_until BIGINT
      );
    `,
  },
  {
    version: 3,
    name: 'deployment settings (the server key fingerprint)',
    sql: `
      CREATE TABLE deployment_settings (
        name TEXT NOT NULL PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'member attributes and sealed login cookies',
    // Sessions created before this version have no sealed cookie: NULL.
    sql: `
      ALTER TABLE members ADD COLUMN attributes TEXT NOT NULL DEFAULT '{}';
      ALTER TABLE sessions ADD COLUMN cookie_sealed TEXT;
    `,
  },
  {
    version: 5,
    name: 'session origins and member second factors',
    // Sessions created before this version have no known address or browser: NULL. The foreign keys cascade
    // because the store turns foreign_keys on for every connection.
    sql: `
      ALTER TABLE sessions ADD COLUMN client_address TEXT;
      ALTER TABLE sessions ADD COLUMN user_agent TEXT;
      CREATE TABLE member_second_factors (
        member_id TEXT NOT NULL PRIMARY KEY REFERENCES members (id) ON DELETE CASCADE,
        secret_sealed TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        confirmed_at BIGINT,
        last_step BIGINT
      );
      CREATE TABLE member_recovery_codes (
        member_id TEXT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
        code_hash TEXT NOT NULL,
        used_at BIGINT,
        PRIMARY KEY (member_id, code_hash)
      );
    `,
  },
  {
    version: 6,
    name: 'indexes for the purges',
    // A purge batch finds its rows through these instead of scanning the whole table, which with a million
    // live sessions held the event loop for a third of a second on every purge, to delete nothing. The session
    // purge's OR is served index by index (a MULTI-INDEX OR). Few sessions are revoked, so only those are
    // indexed; `revoked_at <= ?` implies IS NOT NULL, so the partial index serves it.
    sql: `
      CREATE INDEX sessions_expires_at ON sessions (expires_at);
      CREATE INDEX sessions_revoked_at ON sessions (revoked_at) WHERE revoked_at IS NOT NULL;
      CREATE INDEX sessions_last_seen_at ON sessions (last_seen_at);
      CREATE INDEX throttles_window_started_at ON throttles (window_started_at);
    `,
  },
  {
    version: 7,
    name: 'the OpenID provider: clients, signing keys, records and session links',
    // A record is oidc-provider's JSON with the columns its lookups need: by grant (revoking one), by a session's
    // uid, and by expiry (the purge, as retired keys). A session link goes with its member session.
    sql: `
      CREATE TABLE oidc_clients (
        id TEXT NOT NULL PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        secret_hash TEXT,
        first_party INTEGER NOT NULL CHECK (first_party IN (0, 1)),
        redirect_uris TEXT NOT NULL,
        post_logout_redirect_uris TEXT NOT NULL,
        backchannel_logout_uri TEXT,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE oidc_keys (
        kid TEXT NOT NULL PRIMARY KEY,
        private_jwk_sealed TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        retired_at BIGINT
      );
      CREATE INDEX oidc_keys_retired_at ON oidc_keys (retired_at) WHERE retired_at IS NOT NULL;
      CREATE TABLE oidc_payloads (
        model TEXT NOT NULL,
        id TEXT NOT NULL,
        payload TEXT NOT NULL,
        grant_id TEXT,
        uid TEXT,
        expires_at BIGINT,
        consumed_at BIGINT,
        PRIMARY KEY (model, id)
      );
      CREATE INDEX oidc_payloads_grant_id ON oidc_payloads (grant_id) WHERE grant_id IS NOT NULL;
      CREATE INDEX oidc_payloads_uid ON oidc_payloads (model, uid) WHERE uid IS NOT NULL;
      CREATE INDEX oidc_payloads_expires_at ON oidc_payloads (expires_at) WHERE expires_at IS NOT NULL;
      CREATE TABLE oidc_session_links (
        uid TEXT NOT NULL PRIMARY KEY,
        member_session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        member_id TEXT NOT NULL,
        token_sealed TEXT NOT NULL
      );
      CREATE INDEX oidc_session_links_member_session_id ON oidc_session_links (member_session_id);
      CREATE INDEX oidc_session_links_member_id ON oidc_session_links (member_id);
    `,
  },
  {
    version: 8,
    name: 'member versions',
    // Every write of a member moves its version on; a writer changes the member only at the version it read.
    // Members stored before start at 1, as new ones do.
    sql: `
      ALTER TABLE members ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
    `,
  },
  {
    version: 9,
    name: 'SCIM provisioning: members\' external ids, display names and change times; provisioning clients',
    // A member stored before this version last changed, as far as anyone knows, when it was created. External ids
    // are the provisioning client's keys, looked up exactly and not unique (two clients may use the same one). SCIM
    // lists members by creation, then id, a page at a time.
    sql: `
      ALTER TABLE members ADD COLUMN external_id TEXT;
      ALTER TABLE members ADD COLUMN display_name TEXT;
      ALTER TABLE members ADD COLUMN updated_at BIGINT NOT NULL DEFAULT 0;
      UPDATE members SET updated_at = created_at;
      CREATE INDEX members_external_id ON members (external_id);
      CREATE INDEX members_created_at ON members (created_at, id);
      CREATE TABLE provisioning_clients (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE,
        token_hash TEXT NOT NULL UNIQUE,
        created_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 10,
    name: 'password recovery tokens',
    // The keyed hash of each member's one live recovery link; a newer link replaces the row. The purge finds
    // expired rows through their index.
    sql: `
      CREATE TABLE recovery_tokens (
        member_id TEXT NOT NULL PRIMARY KEY REFERENCES members (id) ON DELETE CASCADE,
        token_hash TEXT NOT NULL UNIQUE,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX recovery_tokens_expires_at ON recovery_tokens (expires_at);
    `,
  },
  {
    version: 11,
    name: 'renewed login cookies',
    // FORMS_SLIDING: a session whose login cookie (a Forms ticket) was renewed is still found by the cookie it
    // replaced, until that ticket's own expiry. Sessions stored before this version were never renewed: NULL.
    sql: `
      ALTER TABLE sessions ADD COLUMN previous_cookie_hash TEXT;
      CREATE UNIQUE INDEX sessions_previous_cookie_hash ON sessions (previous_cookie_hash);
    `,
  },
  {
    version: 12,
    name: 'SCIM name.formatted as the provisioning client wrote it',
    // NULL for every member stored before this version: its formatted name is made of its given and family names,
    // as it was.
    sql: `
      ALTER TABLE members ADD COLUMN formatted_name TEXT;
    `,
  },
  {
    version: 13,
    name: 'the SAML identity provider: service providers, signing keys, session participants and pending requests',
    // An SP's metadata is kept as given and its settings as JSON: the service reads neither here. A key is "next"
    // (published, not signing) until activated_at is set; one key at most is current and one next, also when two
    // instances add one at once (each partial index holds one value, so a second row is a duplicate). A participant goes with its member session or its SP;
    // a request with its SP. A request's ID is unique per SP, which is what refuses a replay; the purge finds
    // expired requests and retired keys through their indexes.
    sql: `
      CREATE TABLE saml_sps (
        id TEXT NOT NULL PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        entity_id TEXT NOT NULL UNIQUE,
        metadata TEXT NOT NULL,
        settings TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE saml_keys (
        kid TEXT NOT NULL PRIMARY KEY,
        private_key_sealed TEXT NOT NULL,
        certificate TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        activated_at BIGINT,
        retired_at BIGINT
      );
      CREATE INDEX saml_keys_retired_at ON saml_keys (retired_at) WHERE retired_at IS NOT NULL;
      CREATE UNIQUE INDEX saml_keys_one_current ON saml_keys ((activated_at IS NOT NULL)) WHERE activated_at IS NOT NULL AND retired_at IS NULL;
      CREATE UNIQUE INDEX saml_keys_one_next ON saml_keys ((activated_at IS NULL)) WHERE activated_at IS NULL AND retired_at IS NULL;
      CREATE TABLE saml_session_sps (
        member_session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        member_id TEXT NOT NULL,
        sp_id TEXT NOT NULL REFERENCES saml_sps (id) ON DELETE CASCADE,
        name_id TEXT NOT NULL,
        name_id_format TEXT NOT NULL,
        session_index TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (member_session_id, sp_id)
      );
      CREATE INDEX saml_session_sps_member_id ON saml_session_sps (member_id);
      CREATE INDEX saml_session_sps_sp_id_name_id ON saml_session_sps (sp_id, name_id);
      CREATE TABLE saml_requests (
        handle TEXT NOT NULL PRIMARY KEY,
        sp_id TEXT NOT NULL REFERENCES saml_sps (id) ON DELETE CASCADE,
        request_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        payload_sealed TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        consumed_at BIGINT,
        UNIQUE (sp_id, request_id)
      );
      CREATE INDEX saml_requests_expires_at ON saml_requests (expires_at);
    `,
  },
  {
    version: 14,
    name: 'the events: every security-relevant event, kept EVENTS_RETENTION_DAYS',
    // One row per event, never updated. One member's history is read newest first through events_member, whose
    // (member_id, occurred_at, id) order is the list's, backwards: a page of it among millions of rows costs its rows
    // alone. The export and the purge read events_time, in time order; the other lists too, newest first.
    sql: `
      CREATE TABLE events (
        id TEXT NOT NULL PRIMARY KEY,
        occurred_at BIGINT NOT NULL,
        type TEXT NOT NULL,
        actor_kind TEXT NOT NULL,
        actor_id TEXT,
        member_id TEXT,
        client_address TEXT,
        device TEXT,
        via TEXT,
        request_id TEXT,
        outcome TEXT,
        reason TEXT
      );
      CREATE INDEX events_member ON events (member_id, occurred_at, id);
      CREATE INDEX events_time ON events (occurred_at, id);
    `,
  },
  {
    version: 15,
    name: 'staff roles',
    // One role per member at most; it goes with its member.
    sql: `
      CREATE TABLE staff_roles (
        member_id TEXT NOT NULL PRIMARY KEY REFERENCES members (id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        granted_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 16,
    name: 'how sessions were opened',
    // Through a partner's call (its caller's name), the sign-in page, or the sign-in page for an OpenID client or a
    // SAML SP (its name): the staff console's member page says it. Written with the session, never read by the
    // lookups of a token or login cookie. NULL for sessions stored before this version.
    sql: `
      ALTER TABLE sessions ADD COLUMN through_kind TEXT;
      ALTER TABLE sessions ADD COLUMN through_name TEXT;
    `,
  },
  {
    version: 17,
    name: 'passkeys, their challenges and the sessions they opened',
    // A passkey goes with its member; a challenge is deleted as it is taken, and expired ones as new ones are
    // stored (through passkey_challenges_expires_at); a session's passkey row goes with its session.
    sql: `
      CREATE TABLE passkeys (
        id TEXT NOT NULL PRIMARY KEY,
        member_id TEXT NOT NULL REFERENCES members (id) ON DELETE CASCADE,
        public_key TEXT NOT NULL,
        counter BIGINT NOT NULL,
        transports TEXT NOT NULL,
        device_type TEXT NOT NULL,
        backed_up INTEGER NOT NULL CHECK (backed_up IN (0, 1)),
        name TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT
      );
      CREATE INDEX passkeys_member_id ON passkeys (member_id);
      CREATE TABLE passkey_challenges (
        id TEXT NOT NULL PRIMARY KEY,
        purpose TEXT NOT NULL,
        member_id TEXT REFERENCES members (id) ON DELETE CASCADE,
        challenge TEXT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX passkey_challenges_expires_at ON passkey_challenges (expires_at);
      CREATE TABLE passkey_sessions (
        session_id TEXT NOT NULL PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        passkey_id TEXT NOT NULL
      );
    `,
  },
  {
    version: 18,
    name: 'SCIM searches: the index of the display name shown',
    // SCIM's displayName is the display name, else the full name as written, else the names joined
    // (src/store/sql/member-filter.ts writes the same expression, so that displayName eq finds members by it).
    sql: `
      CREATE INDEX members_lower_shown_name ON members (lower(COALESCE(display_name, COALESCE(formatted_name,
        CASE WHEN first_name = '' THEN last_name WHEN last_name = '' THEN first_name ELSE first_name || ' ' || last_name END))));
    `,
  },
  {
    version: 19,
    name: 'roles written as SCIM Groups',
    // The members keep holding their roles in their attributes, as before; a role written through /Groups (its name,
    // its external id, its version) is kept here as well, so that a Group without members is kept too.
    sql: `
      CREATE TABLE roles (
        id TEXT NOT NULL PRIMARY KEY,
        name TEXT NOT NULL,
        external_id TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        version INTEGER NOT NULL
      );
    `,
  },
];

const CREATE_SCHEMA_MIGRATIONS = `
  CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at BIGINT NOT NULL
  )`;

/**
 * Applies the migrations not yet recorded in schema_migrations, all in one transaction.
 * The transaction is IMMEDIATE so that two processes starting on one file take turns instead of both migrating.
 * With none to apply, nothing is written: a database another program holds the write lock of opens all the same,
 * and answers reads.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS, now: () => number = Date.now): void {
  if (isUpToDate(db, migrations)) return;
  db.transaction(() => {
    db.exec(CREATE_SCHEMA_MIGRATIONS);
    const applied = appliedVersions(db);
    refuseNewerSchema(applied, migrations);
    const record = db.prepare<[number, string, number]>('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    for (const migration of migrations.filter((m) => !applied.has(m.version))) {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, now());
    }
  }).immediate();
}

function isUpToDate(db: Database.Database, migrations: readonly Migration[]): boolean {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() === undefined) return false;
  const applied = appliedVersions(db);
  return allApplied(applied, migrations);
}

function appliedVersions(db: Database.Database): Set<number> {
  const rows = db.prepare<[], { version: number }>('SELECT version FROM schema_migrations').all();
  return new Set(rows.map((row) => row.version));
}

