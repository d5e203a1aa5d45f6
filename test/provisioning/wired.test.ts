/**
 * SCIM wired to the service, on both stores, through real HTTP requests to the whole app: off until a
 * provisioning client exists, tokens and their throttle, every /Users operation as Entra ID and Okta send it, the
 * error format, ETags and paging over the store, and what a change does to the rest of the service at once: a
 * member deactivated or deleted stops verifying on all four bindings, a changed username or email signs in, and
 * changed membership attributes are in the next result of every operation, in each format that carries them;
 * changed on another instance of the same store, within CACHE_TTL_MS here.
 */
import { BINDINGS, callAsmx, type Binding } from '../helpers/asmx-request.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait.js';
import { MEMBER_EXTENSION, PATCH_OP, USER_SCHEMA } from '../../src/provisioning/urns.js';
import { expectScimError } from './refusal.js';

const PASSWORD = 'correct horse battery staple';
const MEMBER_OPERATIONS = ['AuthenticateCookie', 'AuthenticateToken', 'AuthenticateUser', 'Login', 'ValidateUser'] as const;
/**
 * Every operation offered, results as plain (the member's id; an empty string for a refusal) unless a test's app
 * says otherwise, the test app's cache (1 s) kept.
 */
const ENV = { OPERATIONS: [...MEMBER_OPERATIONS, 'DeleteUserSession'].join(','), COOKIE_DOMAIN: REFERENCE.domain, CALLER_MAX_FAILURES_PER_ADDRESS: '3' };

interface ScimReply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  text: string;
}

/** SCIM requests to the app, with a provisioning client's token (or the one given). */
function scimClient(app: TestApp, token: string) {
  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ScimReply> => {
    const response = await fetch(`${app.baseUrl}/scim/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/scim+json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const json = response.headers.get('content-type')?.includes('json') === true;
    return { status: response.status, headers: response.headers, body: json ? (JSON.parse(text) as Record<string, unknown>) : {}, text };
  };
  return {
    send,
    get: (path: string, headers?: Record<string, string>) => send('GET', path, undefined, headers),
    delete: (path: string, headers?: Record<string, string>) => send('DELETE', path, undefined, headers),
    patch: (id: string, operations: unknown[], headers?: Record<string, string>) => send('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: operations }, headers),
  };
}

/** One operation over one binding, as partner code calls it; the result string, or null when there is none. */
async function call(app: TestApp, binding: Binding, operation: string, params: Record<string, string>): Promise<string | null> {
  return (await callAsmx(app, binding, operation, { securityPassword: REFERENCE.password, ...params })).result;
}

/** As Entra ID creates a user (its default mappings; the tenant URL's aadOptscim062020 flag). */
const entraUser = (userName: string) => ({
  schemas: [USER_SCHEMA, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
  externalId: `${userName.split('@')[0]}`,
  userName,
  active: true,
  displayName: 'Ada Lovelace',
  emails: [{ primary: true, type: 'work', value: userName }],
  name: { formatted: 'Ada Lovelace', familyName: 'Lovelace', givenName: 'Ada' },
  title: 'Countess',
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Mathematics' },
});

/** As Okta creates a user: its SCIM 2.0 test app's profile, with a password. */
const oktaUser = (userName: string) => ({
  schemas: [USER_SCHEMA],
  userName,
  name: { givenName: 'Grace', familyName: 'Hopper' },
  emails: [{ primary: true, value: userName, type: 'work' }],
  displayName: 'Grace Hopper',
  locale: 'en-US',
  externalId: `00u${userName.length}okta`,
  groups: [],
  password: PASSWORD,
  active: true,
});

/** The provisioning log lines of changes, and every line's text, for what must never be in it. */
const changes = (app: TestApp) => app.logLines.filter((line) => line.message === 'provisioning' && line.level === 'info');

function suite(store: 'sqlite' | 'postgres'): void {
  let app: TestApp;
  let token: string;
  let scim: ReturnType<typeof scimClient>;

  beforeEach(async () => {
    app = await startTestApp({ store, env: ENV });
    ({ token } = await app.services.provisioners.add('entra'));
    scim = scimClient(app, token);
  });
  afterEach(() => app.close());

  async function created(body: Record<string, unknown>): Promise<{ id: string; etag: string; body: Record<string, unknown> }> {
    const reply = await scim.send('POST', '/Users', body);
    expect(reply.status).toBe(201);
    return { id: reply.body.id as string, etag: reply.headers.get('etag') ?? '', body: reply.body };
  }

  describe('turning it on, tokens', () => {
    test('off until a provisioning client exists: its paths answer as unknown paths do; on again at once when one is added', async () => {
      const unknown = await fetch(`${app.baseUrl}/no-such-path`);
      const unknownBody = await unknown.text();
      await app.services.provisioners.remove('entra');
      for (const path of ['/scim/v2/Users', '/scim/v2/ServiceProviderConfig']) {
        const off = await fetch(`${app.baseUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } });
        expect([off.status, off.headers.get('content-type'), await off.text()]).toEqual([404, unknown.headers.get('content-type'), unknownBody]);
      }
      const okta = await app.services.provisioners.add('okta');
      const on = await scimClient(app, okta.token).get('/Users');
      // The reference member, added before any client: every member is a User.
      expect([on.status, on.body.totalResults]).toEqual([200, 1]);
    });

    test('a missing or wrong token is 401; a rotated one stops working at once', async () => {
      expectScimError(await scimClient(app, '').get('/Users'), 401);
      expectScimError(await scimClient(app, 'not-the-token').get('/Users'), 401);
      const rotated = await app.services.provisioners.rotate('entra');
      expectScimError(await scim.get('/Users'), 401);
      expect((await scimClient(app, rotated.token).get('/Users')).status).toBe(200);
      const refusals = app.logLines.filter((line) => line.message === 'provisioning' && line.level === 'warn').map((line) => line.outcome);
      expect(refusals).toEqual(['refused:no-token', 'refused:token', 'refused:token']);
      expect(JSON.stringify(app.logLines)).not.toContain(token);
    });

    test('wrong tokens from one address are throttled as wrong security passwords are, apart from them', async () => {
      const wrong = scimClient(app, 'guessed-token');
      for (const status of [401, 401, 401, 429]) expect((await wrong.get('/Users')).status).toBe(status);
      const locked = await scim.get('/Users');
      expectScimError(locked, 429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
      // The partner sites' calls from the same address are not locked by the identity provider's mistakes.
      expect(await call(app, 'soap11', 'AuthenticateToken', { token: REFERENCE.token })).toBe(REFERENCE.memberId);
    });
  });

  describe('Entra ID', () => {
    test('probe, create, find by userName and by work email, update with capitalised ops, disable with "False", delete', async () => {
      const probe = await scim.get(`/Users?filter=${encodeURIComponent('userName eq "Test_User_dfeef4c5-aa1b-4fa2-b1a6-36b8f1a7a2f2"')}`);
      expect(probe.body).toMatchObject({ totalResults: 0, Resources: [] });

      const { id, etag, body } = await created(entraUser('ada@example.com'));
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(etag).toBe('W/"1"');
      expect(body.meta).toMatchObject({ location: `${app.baseUrl}/scim/v2/Users/${id}`, version: 'W/"1"' });
      await expect(app.services.members.get(id)).resolves.toMatchObject({ username: 'ada@example.com', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', enabled: true });

      for (const filter of ['userName eq "ADA@example.com"', 'emails[type eq "work"].value eq "ada@EXAMPLE.com"', 'externalId eq "ada"', `id eq "${id}"`]) {
        const found = await scim.get(`/Users?filter=${encodeURIComponent(filter)}`);
        expect([filter, found.body.totalResults, (found.body.Resources as Array<{ id: string }>).map((user) => user.id)]).toEqual([filter, 1, [id]]);
      }
      expect((await scim.get(`/Users?filter=${encodeURIComponent('externalId eq "ADA"')}`)).body.totalResults).toBe(0);

      const updated = await scim.patch(id, [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'countess@example.com' },
        { op: 'Add', path: 'title', value: 'Countess' },
        { op: 'Replace', value: { 'name.givenName': 'Augusta', displayName: 'The Countess' } },
      ]);
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ emails: [{ value: 'countess@example.com' }], name: { givenName: 'Augusta' }, displayName: 'The Countess', meta: { version: 'W/"2"' } });
      const read = await scim.get(`/Users/${id}`);
      expect([read.headers.get('etag'), read.body.displayName]).toEqual(['W/"2"', 'The Countess']);

      const disabled = await scim.patch(id, [{ op: 'Replace', path: 'active', value: 'False' }]);
      expect([disabled.body.active, disabled.headers.get('etag')]).toEqual([false, 'W/"3"']);
      await expect(app.services.members.get(id)).resolves.toMatchObject({ enabled: false, email: 'countess@example.com', firstName: 'Augusta' });

      expect((await scim.delete(`/Users/${id}`)).status).toBe(204);
      expectScimError(await scim.get(`/Users/${id}`), 404);
      await expect(app.services.members.exists(id)).resolves.toBe(false);
      expect(changes(app).map(({ outcome, client, member }) => [outcome, client, member])).toEqual([
        ['created', 'entra', id],
        ['modified', 'entra', id],
        ['modified', 'entra', id],
        ['removed', 'entra', id],
      ]);
    });
  });

  describe('Okta', () => {
    test('its connection test pages the members in the order they were created', async () => {
      for (const name of ['grace', 'hedy', 'katherine']) await created(oktaUser(`${name}@example.com`));
      const page = await scim.get('/Users?startIndex=1&count=2');
      expect(page.body).toMatchObject({ totalResults: 4, startIndex: 1, itemsPerPage: 2 });
      // The reference member was added first, by the CLI's service: every member is a User.
      expect((page.body.Resources as Array<{ userName: string }>).map(({ userName }) => userName)).toEqual(['ada', 'grace@example.com']);
      const next = await scim.get('/Users?startIndex=3&count=2');
      expect((next.body.Resources as Array<{ userName: string }>).map(({ userName }) => userName)).toEqual(['hedy@example.com', 'katherine@example.com']);
      expect((await scim.get('/Users?startIndex=5&count=2')).body).toMatchObject({ totalResults: 4, itemsPerPage: 0, Resources: [] });
      expect((await scim.get('/Users?count=0')).body).toMatchObject({ totalResults: 4, itemsPerPage: 0 });
    });

    test('the password it sets signs in; deactivation by PUT of the user it read; a PATCH that changes nothing writes nothing', async () => {
      const { id } = await created({ ...oktaUser('grace@example.com'), [MEMBER_EXTENSION]: { organisationId: 'O-1' } });
      expect(await call(app, 'httppost', 'Login', { username: 'grace@example.com', password: PASSWORD, authenticationToken: '' })).toBe(id);
      const read = (await scim.get(`/Users/${id}`)).body;
      const put = await scim.send('PUT', `/Users/${id}`, { ...read, active: false });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ active: false, [MEMBER_EXTENSION]: { organisationId: 'O-1' }, meta: { version: 'W/"2"' } });
      const again = await scim.patch(id, [{ op: 'replace', value: { active: false } }]);
      expect([again.status, again.headers.get('etag')]).toEqual([200, 'W/"2"']);
      expect(changes(app).map(({ outcome }) => outcome)).toEqual(['created', 'replaced']);
      expect(JSON.stringify(app.logLines)).not.toContain(PASSWORD);
    });
  });

  describe('the filter language and sorting', () => {
    test("the filters Microsoft's SCIM validation sends (displayName eq, sw, a grouped or, meta.created gt) and sortBy answer from the store", async () => {
      const ada = await created(entraUser('ada@example.com'));
      const grace = await created({ ...oktaUser('grace@example.com'), password: undefined });
      const ids = async (query: string) => ((await scim.get(`/Users?${query}`)).body.Resources as Array<{ id: string }>).map((user) => user.id);
      const filtered = (filter: string, more = '') => ids(`filter=${encodeURIComponent(filter)}${more}`);
      // The reference member has no display name: its names joined are shown, and found.
      expect(await filtered('displayName eq "ada lovelace"')).toEqual([REFERENCE.memberId, ada.id]);
      expect(await filtered('userName sw "GRACE@"')).toEqual([grace.id]);
      expect(await filtered('(userName eq "ada@example.com" or userName eq "grace@example.com") and active eq true', '&sortBy=userName&sortOrder=descending')).toEqual([grace.id, ada.id]);
      expect(await filtered(`meta.created gt "${ada.body.meta && (ada.body.meta as { created: string }).created}" and not (emails co "ada")`)).toEqual(
        grace.body.meta && (grace.body.meta as { created: string }).created > (ada.body.meta as { created: string }).created ? [grace.id] : [],
      );
      expect(await filtered('emails[type eq "work" and value ew "@example.com"] and externalId pr', '&sortBy=name.familyName')).toEqual([grace.id, ada.id]);
      expectScimError(await scim.get(`/Users?sortBy=roles`), 400, 'invalidValue');
      expect((await scim.get('/ServiceProviderConfig')).body.sort).toEqual({ supported: true });
    });
  });

  describe('values the member keeps as they are', () => {
    test('a PUT or a PATCH whose values differ from the stored ones only as the service trims them writes nothing', async () => {
      const { id } = await created({ ...oktaUser('grace@example.com'), externalId: 'ext-1', [MEMBER_EXTENSION]: { organisationId: 'O-1', extra: { dept: 'Navy' } } });
      const read = (await scim.get(`/Users/${id}`)).body;
      const padded = {
        ...read,
        userName: ' grace@example.com ',
        externalId: ' ext-1 ',
        displayName: 'Grace Hopper ',
        name: { givenName: ' Grace ', familyName: 'Hopper\t' },
        emails: [{ value: ' grace@example.com', type: 'work', primary: true }],
        [MEMBER_EXTENSION]: { organisationId: ' O-1 ', contactNumber: '  ', extra: { dept: 'Navy ', empty: ' ' } },
      };
      for (let i = 0; i < 2; i++) {
        const put = await scim.send('PUT', `/Users/${id}`, padded);
        expect([put.status, put.headers.get('etag')]).toEqual([200, 'W/"1"']);
        expect(put.body).toMatchObject({ userName: 'grace@example.com', name: { givenName: 'Grace' }, meta: { version: 'W/"1"' } });
      }
      const patched = await scim.patch(id, [
        { op: 'replace', path: 'name.givenName', value: ' Grace ' },
        { op: 'replace', path: `${MEMBER_EXTENSION}:organisationId`, value: 'O-1 ' },
      ]);
      expect([patched.status, patched.headers.get('etag')]).toEqual([200, 'W/"1"']);
      expect(changes(app).map(({ outcome }) => outcome)).toEqual(['created']);
      const changed = await scim.send('PUT', `/Users/${id}`, { ...padded, name: { givenName: ' Amazing Grace ', familyName: 'Hopper' } });
      expect(changed.body).toMatchObject({ name: { givenName: 'Amazing Grace' }, meta: { version: 'W/"2"' } });
      expect(changes(app).map(({ outcome }) => outcome)).toEqual(['created', 'replaced']);
    });
  });

  describe('every attribute declared in /Schemas kept as sent', () => {
    interface Declared {
      name: string;
      type: string;
      multiValued: boolean;
      mutability: string;
      returned: string;
      canonicalValues?: string[];
      subAttributes?: Declared[];
    }

    /** A value for each writable attribute, different in each round: texts name their attribute, booleans are true. */
    function valueOf(attribute: Declared, path: string, round: string): unknown {
      if (attribute.type === 'boolean') return true;
      if (attribute.type === 'string') return attribute.canonicalValues?.[0] ?? `${path} ${round} Zoë`;
      const subs = attribute.subAttributes ?? [];
      // A complex attribute without declared sub-attributes is free-form (the extension's extras).
      const object = subs.length === 0 ? { [`key_${round}`]: `${path} ${round}` } : objectOf(subs, `${path}.`, round);
      return attribute.multiValued ? [object] : object;
    }

    function objectOf(attributes: readonly Declared[], prefix: string, round: string): Record<string, unknown> {
      const writable = attributes.filter(({ mutability }) => mutability === 'readWrite' || mutability === 'writeOnly');
      return Object.fromEntries(writable.map((attribute) => [attribute.name, valueOf(attribute, `${prefix}${attribute.name}`, round)]));
    }

    /** The declared attributes' names, sub-attributes as name.sub. */
    const namesOf = (attributes: readonly Declared[]): string[] =>
      attributes.flatMap(({ name, subAttributes = [] }) => [name, ...subAttributes.map((sub) => `${name}.${sub.name}`)]);

    /** A whole User of every writable attribute, in the round's values; and the attributes never returned. */
    async function everyAttribute(round: string): Promise<{ user: Record<string, unknown>; unreturned: string[]; declared: string[] }> {
      // The User's schema and its extensions, as /ResourceTypes names them.
      const type = (await scim.get('/ResourceTypes/User')).body as { schema: string; schemaExtensions: Array<{ schema: string }> };
      const extensions = type.schemaExtensions.map(({ schema }) => schema);
      const schemas = (await scim.get('/Schemas')).body.Resources as Array<{ id: string; attributes: Declared[] }>;
      const attributesOf = (id: string) => schemas.find((schema) => schema.id === id)?.attributes ?? [];
      const core = attributesOf(type.schema);
      const user = { schemas: [type.schema, ...extensions], ...objectOf(core, '', round), ...Object.fromEntries(extensions.map((id) => [id, objectOf(attributesOf(id), '', round)])) };
      const unreturned = core.filter(({ returned }) => returned === 'never').map(({ name }) => name);
      return { user, unreturned, declared: [...namesOf(core), ...extensions.flatMap((id) => namesOf(attributesOf(id)))] };
    }

    /**
     * What a GET answers of the attributes sent, against what was sent: equal after a PUT; after a PATCH replace,
     * which merges a complex value's sub-attributes into those it had (RFC 7644 §3.5.2.3), holding them.
     */
    async function expectKept(id: string, { user, unreturned }: { user: Record<string, unknown>; unreturned: string[] }, merged = false): Promise<void> {
      const read = (await scim.get(`/Users/${id}`)).body;
      for (const [name, value] of Object.entries(user)) {
        if (unreturned.includes(name)) expect(read).not.toHaveProperty(name);
        else if (merged) expect({ [name]: read[name] }).toMatchObject({ [name]: value });
        else expect({ [name]: read[name] }).toEqual({ [name]: value });
      }
    }

    test('PUT then GET, and a path-less PATCH replace then GET, return every attribute as sent; the password signs in', async () => {
      const { id } = await created(entraUser('ada@example.com'));
      const put = await everyAttribute('put');
      expect(put.declared).toEqual(
        expect.arrayContaining(['userName', 'name.formatted', 'name.givenName', 'emails.value', 'roles.display', 'isMember', 'extra', 'title', 'preferredLanguage', 'locale', 'timezone', 'addresses.streetAddress', 'phoneNumbers.value', 'employeeNumber', 'organization', 'department']),
      );
      expect(put.unreturned).toEqual(['password']);
      const replaced = await scim.send('PUT', `/Users/${id}`, { ...put.user, password: PASSWORD });
      expect(replaced.status).toBe(200);
      await expectKept(id, put);
      expect(await call(app, 'httppost', 'Login', { username: put.user.userName as string, password: PASSWORD, authenticationToken: '' })).toBe(id);

      const patch = await everyAttribute('patch');
      const { schemas: _schemas, ...attributes } = patch.user;
      expect((await scim.patch(id, [{ op: 'replace', value: { ...attributes, password: `${PASSWORD} 2` } }])).status).toBe(200);
      await expectKept(id, patch, true);
      expect(await call(app, 'httppost', 'Login', { username: patch.user.userName as string, password: `${PASSWORD} 2`, authenticationToken: '' })).toBe(id);
    });

    test('name.formatted as Entra ID and the SCIM validator write it: kept, and the names joined when none was written', async () => {
      const { id } = await created(entraUser('ada@example.com'));
      const put = await scim.send('PUT', `/Users/${id}`, { ...entraUser('ada@example.com'), name: { formatted: 'NewName', givenName: 'Ada', familyName: 'Lovelace' } });
      expect([put.status, put.body.name]).toEqual([200, { formatted: 'NewName', givenName: 'Ada', familyName: 'Lovelace' }]);
      expect((await scim.get(`/Users/${id}`)).body.name).toEqual({ formatted: 'NewName', givenName: 'Ada', familyName: 'Lovelace' });
      await scim.patch(id, [{ op: 'remove', path: 'name.formatted' }]);
      expect((await scim.get(`/Users/${id}`)).body.name).toEqual({ formatted: 'Ada Lovelace', givenName: 'Ada', familyName: 'Lovelace' });
    });

    test('values one email address cannot keep as sent are refused with 400 invalidValue, and nothing is written', async () => {
      const { id } = await created(entraUser('ada@example.com'));
      for (const emails of [[{ value: 'a@example.com' }, { value: 'b@example.com' }], [{ value: 'a@example.com', type: 'home' }], [{ value: 'a@example.com', primary: false }]]) {
        expectScimError(await scim.send('PUT', `/Users/${id}`, { ...entraUser('ada@example.com'), emails }), 400, 'invalidValue');
      }
      expectScimError(await scim.patch(id, [{ op: 'add', path: 'emails', value: [{ value: 'b@example.com', type: 'work' }] }]), 400, 'invalidValue');
      expect((await scim.get(`/Users/${id}`)).headers.get('etag')).toBe('W/"1"');
    });
  });

  describe('refusals, versions', () => {
    test('a userName taken in any case: 409 uniqueness, on create and on a change; an email shared is fine', async () => {
      const { id } = await created(entraUser('ada@example.com'));
      expectScimError(await scim.send('POST', '/Users', entraUser('ADA@EXAMPLE.COM')), 409, 'uniqueness');
      const other = await created({ ...entraUser('countess@example.com'), emails: [{ value: 'ada@example.com', primary: true }] });
      expectScimError(await scim.patch(other.id, [{ op: 'replace', path: 'userName', value: 'Ada@Example.com' }]), 409, 'uniqueness');
      expectScimError(await scim.patch(other.id, [{ op: 'replace', path: 'userName', value: 'ADA' }]), 409, 'uniqueness');
      expect((await scim.get(`/Users/${other.id}`)).body).toMatchObject({ userName: 'countess@example.com', meta: { version: 'W/"1"' } });
      expect((await scim.get(`/Users/${id}`)).body.userName).toBe('ada@example.com');
    });

    test("the member's checks: 400 invalidValue with the service's reason, and nothing written", async () => {
      const { id } = await created(entraUser('ada@example.com'));
      const short = await scim.patch(id, [{ op: 'replace', path: 'password', value: 'short' }]);
      expectScimError(short, 400, 'invalidValue');
      expect(short.body.detail).toBe('A member password must be at least 8 characters long');
      const long = await scim.patch(id, [{ op: 'replace', path: 'name.familyName', value: 'x'.repeat(257) }]);
      expectScimError(long, 400, 'invalidValue');
      expect(long.body.detail).toMatch(/longer than 256 characters/);
      expectScimError(await scim.send('POST', '/Users', { ...entraUser('b@example.com'), [MEMBER_EXTENSION]: { organisationId: 'x'.repeat(300) } }), 400, 'invalidValue');
      expect((await scim.get(`/Users/${id}`)).headers.get('etag')).toBe('W/"1"');
    });

    test('ETags: 304 for the current version, 412 for an older one; every change moves the version, whoever makes it', async () => {
      const { id, etag } = await created(entraUser('ada@example.com'));
      expect((await scim.get(`/Users/${id}`, { 'If-None-Match': etag })).status).toBe(304);
      await app.services.members.update(id, { lastName: 'King' });
      await app.services.members.setEnabled(id, false);
      await app.services.members.setPassword(id, PASSWORD);
      const read = await scim.get(`/Users/${id}`, { 'If-None-Match': etag });
      expect([read.status, read.headers.get('etag'), read.body.active]).toEqual([200, 'W/"4"', false]);
      expect(Date.parse((read.body.meta as { lastModified: string }).lastModified)).toBeGreaterThanOrEqual(Date.parse((read.body.meta as { created: string }).created));
      const body = [{ op: 'replace', path: 'displayName', value: 'X' }];
      expectScimError(await scim.patch(id, body, { 'If-Match': etag }), 412);
      expectScimError(await scim.send('PUT', `/Users/${id}`, entraUser('ada@example.com'), { 'If-Match': etag }), 412);
      expectScimError(await scim.delete(`/Users/${id}`, { 'If-Match': etag }), 412);
      const changed = await scim.patch(id, body, { 'If-Match': 'W/"4"' });
      expect([changed.status, changed.headers.get('etag')]).toEqual([200, 'W/"5"']);
      expect((await scim.delete(`/Users/${id}`, { 'If-Match': 'W/"5"' })).status).toBe(204);
    });

    test('names of Object.prototype: a PATCH naming one 400 invalidPath, a PUT keyed by one ignores it, a filter on one 400 invalidFilter; nothing logged as an error', async () => {
      const { id } = await created(entraUser('ada@example.com'));
      for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        for (const path of [name, `name.${name}`, `${USER_SCHEMA}:${name}`, `${MEMBER_EXTENSION}:${name}`]) {
          expectScimError(await scim.patch(id, [{ op: 'replace', path, value: 'x' }]), 400, 'invalidPath');
        }
        expectScimError(await scim.patch(id, [{ op: 'replace', value: JSON.parse(`{"${name}": "x"}`) }]), 400, 'invalidPath');
        expectScimError(await scim.get(`/Users?filter=${encodeURIComponent(`${name} eq "x"`)}`), 400, 'invalidFilter');
      }
      const put = await scim.send('PUT', `/Users/${id}`, { ...entraUser('ada@example.com'), constructor: 'x', toString: 'y' });
      expect([put.status, put.headers.get('etag')]).toEqual([200, 'W/"1"']);
      // An extra attribute may have such a name: it is the member's own, stored and read back as any other.
      const extras = await scim.patch(id, [{ op: 'add', path: MEMBER_EXTENSION, value: { extra: JSON.parse('{"__proto__": "p", "constructor": "c"}') } }]);
      expect(extras.status).toBe(200);
      expect(JSON.stringify((await scim.get(`/Users/${id}`)).body[MEMBER_EXTENSION])).toBe('{"extra":{"__proto__":"p","constructor":"c"}}');
      expect(app.logLines.filter((line) => line.level === 'error')).toEqual([]);
    });

    test('40 PATCHes of one User at once, each adding its own role: every one succeeds and every role is kept', async () => {
      const { id } = await created(entraUser('ada@example.com'));
      const roles = Array.from({ length: 40 }, (_, i) => `role-${i}`);
      const replies = await Promise.all(roles.map((role) => scim.patch(id, [{ op: 'add', path: 'roles', value: [{ value: role, display: role }] }])));
      expect(replies.map((reply) => reply.status)).toEqual(roles.map(() => 200));
      const read = await scim.get(`/Users/${id}`);
      expect(((read.body.roles as Array<{ value: string }>) ?? []).map(({ value }) => value).sort()).toEqual([...roles].sort());
      expect(read.headers.get('etag')).toBe(`W/"${roles.length + 1}"`);
      expect(changes(app).filter(({ outcome }) => outcome === 'modified')).toHaveLength(roles.length);
    });

    test('unknown Users: 404 for GET, PUT, PATCH and DELETE', async () => {
      expectScimError(await scim.get('/Users/nobody'), 404);
      expectScimError(await scim.send('PUT', '/Users/nobody', entraUser('x@example.com')), 404);
      expectScimError(await scim.patch('nobody', [{ op: 'replace', path: 'active', value: false }]), 404);
      expectScimError(await scim.delete('/Users/nobody'), 404);
      expectScimError(await scim.get(`/Users?filter=${encodeURIComponent('nickName eq "x"')}`), 400, 'invalidFilter');
    });
  });

  describe('what a change does to the rest of the service', () => {
    /** A member provisioned with a password and signed in: its token, verified on every binding (and so cached). */
    async function signedIn(userName: string): Promise<{ id: string; token: string }> {
      const { id } = await created({ ...oktaUser(userName), password: PASSWORD });
      const issued = await app.services.sessions.create(id, REFERENCE.domain);
      for (const binding of BINDINGS) expect(await call(app, binding, 'AuthenticateToken', { token: issued.token })).toBe(id);
      return { id, token: issued.token };
    }

    test.each([
      ['active "False" by PATCH (Entra ID)', (id: string) => scim.patch(id, [{ op: 'Replace', path: 'active', value: 'False' }])],
      ['active false by PUT of the whole user (Okta)', async (id: string) => scim.send('PUT', `/Users/${id}`, { ...(await scim.get(`/Users/${id}`)).body, active: false })],
      ['active false by a path-less PATCH (Okta)', (id: string) => scim.patch(id, [{ op: 'replace', value: { active: false } }])],
      ['DELETE', (id: string) => scim.delete(`/Users/${id}`)],
    ])("%s: the member's token stops verifying at once on all four bindings", async (_how, deactivate) => {
      const { id, token: sessionToken } = await signedIn('grace@example.com');
      expect((await deactivate(id)).status).toBeLessThan(300);
      for (const binding of BINDINGS) expect([binding, await call(app, binding, 'AuthenticateToken', { token: sessionToken })]).toEqual([binding, '']);
      expect(await call(app, 'soap12', 'Login', { username: 'grace@example.com', password: PASSWORD, authenticationToken: '' })).toBe('');
    });

    describe('on another instance of the same store', () => {
      let there: TestApp;

      beforeEach(async () => {
        there = await startTestApp({ store: async () => ({ store: app.store, cleanup: async () => {} }), seed: false, env: ENV, secretKey: app.secretKey });
      });
      afterEach(() => there.close());

      test.each([
        ['active false by PATCH', (id: string) => scimClient(there, token).patch(id, [{ op: 'replace', path: 'active', value: false }])],
        ['DELETE', (id: string) => scimClient(there, token).delete(`/Users/${id}`)],
      ])('%s there: here, the member stops verifying within CACHE_TTL_MS on all four bindings, and DeleteUserSession ends nothing', async (_how, change) => {
        const { id, token: sessionToken } = await signedIn('grace@example.com');
        const { cookie } = await app.services.sessions.create(id, REFERENCE.domain);
        expect(await call(app, 'soap11', 'AuthenticateCookie', { loginCookie: cookie, cookieDomain: REFERENCE.domain })).toBe(id);
        expect((await change(id)).status).toBeLessThan(300);
        expect(await call(there, 'soap12', 'AuthenticateToken', { token: sessionToken })).toBe('');
        // Each answer cached here before the change lives CACHE_TTL_MS from when it was cached.
        const refusedHere = async () =>
          (await call(app, 'httpget', 'AuthenticateToken', { token: sessionToken })) === '' &&
          (await call(app, 'httppost', 'AuthenticateCookie', { loginCookie: cookie, cookieDomain: REFERENCE.domain })) === '';
        await waitUntil(refusedHere, 'the token and the cookie to be refused here', { timeoutMs: app.config.cacheTtlMs + 2000 });
        for (const binding of BINDINGS) expect([binding, await call(app, binding, 'AuthenticateToken', { token: sessionToken })]).toEqual([binding, '']);
        expect(await call(app, 'soap11', 'DeleteUserSession', { token: sessionToken })).toBe('');
      });
    });

    test('a changed username or email signs in at once; the old ones no longer do', async () => {
      const { id } = await signedIn('grace@example.com');
      await scim.patch(id, [
        { op: 'replace', path: 'userName', value: 'admiral' },
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'admiral@navy.example' },
      ]);
      expect(await call(app, 'httpget', 'Login', { username: 'ADMIRAL', password: PASSWORD, authenticationToken: '' })).toBe(id);
      expect(await call(app, 'soap11', 'ValidateUser', { username: 'admiral@navy.example', password: PASSWORD })).toBe(id);
      expect(await call(app, 'httppost', 'Login', { username: 'grace@example.com', password: PASSWORD, authenticationToken: '' })).toBe('');
    });
  });
}

/** The results of every operation that answers with a member, in a format that carries the membership attributes. */
function attributesSuite(store: 'sqlite' | 'postgres', format: 'json' | 'ibridge'): void {
  let app: TestApp;

  beforeAll(async () => {
    const fields = format === 'json' ? { JSON_FIELDS: 'status,contactid,parentcustomerid,pa_member,pa_webroles,attr:department' } : { IBRIDGE_USER_ATTRIBUTES: 'ORGANISATION_NAME,IS_MEMBER,ROLES,attr:department' };
    app = await startTestApp({ store, env: { ...ENV, RESULT_FORMAT: format, ...fields } });
  });
  afterAll(() => app.close());

  /** What each operation answers for the member, one binding after another. */
  async function results(username: string, cookie: string, sessionToken: string): Promise<string[]> {
    const params: Record<(typeof MEMBER_OPERATIONS)[number], Record<string, string>> = {
      AuthenticateCookie: { loginCookie: cookie, cookieDomain: REFERENCE.domain },
      AuthenticateToken: { token: sessionToken },
      AuthenticateUser: { username, password: PASSWORD, authenticationToken: '' },
      Login: { username, password: PASSWORD, authenticationToken: '' },
      ValidateUser: { username, password: PASSWORD },
    };
    return Promise.all(MEMBER_OPERATIONS.map(async (operation, i) => (await call(app, BINDINGS[i % BINDINGS.length] as Binding, operation, params[operation])) ?? ''));
  }

  test('changed by SCIM, they are in the next result of every operation', async () => {
    const { token } = await app.services.provisioners.add(`entra-${format}`);
    const scim = scimClient(app, token);
    const userName = `ada-${format}@example.com`;
    const created = await scim.send('POST', '/Users', {
      ...entraUser(userName),
      password: PASSWORD,
      roles: [{ value: 'r1', display: 'Reader' }],
      [MEMBER_EXTENSION]: { organisationName: 'Analytical Society', isMember: false, extra: { department: 'Maths' } },
    });
    const id = created.body.id as string;
    const session = await app.services.sessions.create(id, REFERENCE.domain);
    const before = await results(userName, session.cookie, session.token);
    for (const result of before) expect(result).toMatch(format === 'json' ? /"parentcustomerid":"Analytical Society","pa_member":false,"pa_webroles":\[\{"id":"r1","name":"Reader"\}\],"department":"Maths"/ : /ORGANISATION_NAME="Analytical Society" IS_MEMBER="false" ROLES="Reader" department="Maths"/);

    const patched = await scim.patch(id, [
      { op: 'replace', path: `${MEMBER_EXTENSION}:organisationName`, value: 'Royal Society' },
      { op: 'replace', path: `${MEMBER_EXTENSION}:isMember`, value: 'True' },
      { op: 'add', path: 'roles', value: [{ value: 'r2', display: 'Fellow' }] },
      { op: 'replace', path: `${MEMBER_EXTENSION}:extra.department`, value: 'Engines' },
    ]);
    expect(patched.status).toBe(200);
    const after = await results(userName, session.cookie, session.token);
    for (const result of after) expect(result).toMatch(format === 'json' ? /"parentcustomerid":"Royal Society","pa_member":true,"pa_webroles":\[\{"id":"r1","name":"Reader"\},\{"id":"r2","name":"Fellow"\}\],"department":"Engines"/ : /ORGANISATION_NAME="Royal Society" IS_MEMBER="true" ROLES="Reader\|Fellow" department="Engines"/);
  });
}

describe('SCIM on SQLite', () => suite('sqlite'));
describeWithPostgres('SCIM on PostgreSQL', () => suite('postgres'));
for (const format of ['json', 'ibridge'] as const) {
  describe(`membership attributes in ${format} results, on SQLite`, () => attributesSuite('sqlite', format));
  describeWithPostgres(`membership attributes in ${format} results, on PostgreSQL`, () => attributesSuite('postgres', format));
}
