/**
 * The SCIM router's HTTP behaviour (src/provisioning/router.ts, users.ts): authentication, discovery, the /Users
 * operations as Entra ID and Okta run them, ETags and If-Match, paging, bodies refused, SCIM's error format, and
 * one `provisioning` log line per change. The port is MapBackedMembers below, a small real implementation over a
 * Map that exists for this file only; the wiring step tests the service's implementation over both stores.
 */
import express, { type Express } from 'express';
import request from 'supertest';
import type { MemberFields, MemberQuery, ProvisionedMember, ScimGroups, ScimMembers, WriteResult } from '../../src/provisioning/port.js';
import { createScimRouter } from '../../src/provisioning/router.js';
import { ENTERPRISE_EXTENSION, GROUP_SCHEMA, MEMBER_EXTENSION, PATCH_OP } from '../../src/provisioning/urns.js';
import { meetsMemberFilter } from './member-filter-evaluation.js';
import { expectScimError } from './refusal.js';

const TOKEN = 'entra-token-0123456789';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const MAX_BODY_BYTES = 64 * 1024;

/**
 * The port over a Map, for this file's HTTP tests only: usernames unique ignoring case, emails shared, a version
 * that grows with every write, passwords of fewer than 8 characters refused as the service refuses them, and
 * fields equal to the member's (no trimming here) written not at all.
 */
class MapBackedMembers implements ScimMembers {
  readonly rows = new Map<string, ProvisionedMember>();
  readonly passwords = new Map<string, string | null>();
  /** How many writes to answer `stale`, each after a change by "someone else" (the version moves on). */
  staleWrites = 0;
  /** Makes every call fail, as a store that cannot be reached. */
  broken = false;
  #now = Date.UTC(2024, 0, 1);
  #nextId = 1;

  #check(): void {
    if (this.broken) throw new Error('the store is gone');
  }

  #invalid(fields: MemberFields): WriteResult | undefined {
    if (typeof fields.password === 'string' && fields.password.length < 8) return { ok: false, reason: 'invalid', detail: 'A member password must be at least 8 characters long' };
    return undefined;
  }

  #taken(username: string, except?: string): boolean {
    return [...this.rows.values()].some((row) => row.id !== except && row.username.toLowerCase() === username.toLowerCase());
  }

  #store(id: string, fields: MemberFields, createdAt: number, version: number): ProvisionedMember {
    const { password, ...rest } = fields;
    if (password !== undefined) this.passwords.set(id, password);
    const row = { ...structuredClone(rest), id, createdAt, updatedAt: (this.#now += 1000), version };
    this.rows.set(id, row);
    return structuredClone(row);
  }

  async list(query: MemberQuery, page: { offset: number; limit: number }) {
    this.#check();
    const { filter } = query;
    const matching = [...this.rows.values()].filter((row) => filter === undefined || meetsMemberFilter(row, filter));
    return { total: matching.length, members: structuredClone(matching.slice(page.offset, page.offset + page.limit)) };
  }

  async get(id: string) {
    this.#check();
    const row = this.rows.get(id);
    return row === undefined ? null : structuredClone(row);
  }

  async create(fields: MemberFields): Promise<WriteResult> {
    this.#check();
    if (this.#taken(fields.username)) return { ok: false, reason: 'userNameTaken' };
    return this.#invalid(fields) ?? { ok: true, member: this.#store(`m-${this.#nextId++}`, fields, (this.#now += 1000), 1) };
  }

  async replace(current: ProvisionedMember, fields: MemberFields): Promise<WriteResult> {
    this.#check();
    const { id, createdAt: _createdAt, updatedAt: _updatedAt, version: _version, ...own } = current;
    // Both built in the same order (fieldsOf); compared as JSON, since structuredClone's objects come from another realm.
    if (fields.password === undefined && JSON.stringify(fields) === JSON.stringify(own)) return { ok: true, member: structuredClone(current) };
    const row = this.rows.get(id);
    if (row === undefined) return { ok: false, reason: 'notFound' };
    if (this.staleWrites > 0) {
      this.staleWrites--;
      row.version++;
    }
    if (row.version !== current.version) return { ok: false, reason: 'stale' };
    if (this.#taken(fields.username, id)) return { ok: false, reason: 'userNameTaken' };
    return this.#invalid(fields) ?? { ok: true, member: this.#store(id, fields, row.createdAt, row.version + 1) };
  }

  async remove(id: string, expectedVersion?: number) {
    this.#check();
    const row = this.rows.get(id);
    if (row === undefined) return 'notFound' as const;
    if (expectedVersion !== undefined && row.version !== expectedVersion) return 'stale' as const;
    this.rows.delete(id);
    return 'removed' as const;
  }
}

interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

let members: MapBackedMembers;
let lines: LogLine[];
let app: Express;
/** The client address of each wrong token: from the third on, the clients' check answers with a lock. */
let addresses: string[];

/** These tests drive /Users and discovery; /Groups is driven over the real service (groups.test.ts). */
const unused = async (): Promise<never> => {
  throw new Error('/Groups is not driven by these tests');
};
const NO_GROUPS: ScimGroups = { list: unused, get: unused, holders: unused, create: unused, replace: unused, changeMembers: unused, remove: unused };

beforeEach(() => {
  members = new MapBackedMembers();
  lines = [];
  addresses = [];
  const record = (level: string) => (message: string, fields: Record<string, unknown> = {}) => void lines.push({ level, message, fields });
  app = express();
  app.use(
    '/scim/v2',
    createScimRouter({
      members,
      groups: NO_GROUPS,
      clients: {
        anyExist: async () => true,
        authenticate: async (token, clientAddress) => {
          if (token === TOKEN) return { ok: true, client: 'entra' };
          addresses.push(clientAddress);
          return { ok: false, retryAfterSeconds: addresses.length > 2 ? 300 : null };
        },
      },
      logger: { info: record('info'), warn: record('warn'), error: record('error') },
      maxBodyBytes: MAX_BODY_BYTES,
      baseUrl: () => 'https://ams.example/scim/v2',
      clientAddress: () => '192.0.2.7',
    }),
  );
});

const scim = {
  get: (path: string) => request(app).get(`/scim/v2${path}`).set(AUTH),
  delete: (path: string) => request(app).delete(`/scim/v2${path}`).set(AUTH),
  send: (method: 'post' | 'put' | 'patch', path: string, body: unknown) => request(app)[method](`/scim/v2${path}`).set(AUTH).set('Content-Type', 'application/scim+json').send(JSON.stringify(body)),
};

const ADA = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  externalId: 'ext-ada',
  userName: 'ada@example.com',
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [{ primary: true, type: 'work', value: 'ada@example.com' }],
  active: true,
};

async function created(body: Record<string, unknown> = ADA): Promise<{ id: string; etag: string }> {
  const response = await scim.send('post', '/Users', body);
  expect(response.status).toBe(201);
  return { id: response.body.id as string, etag: response.headers.etag as string };
}

/** The log lines a change wrote. */
const changes = () => lines.filter((line) => line.message === 'provisioning' && line.level === 'info').map((line) => line.fields);

describe('authentication', () => {
  test.each([
    ['no Authorization', {}],
    ['an unknown token', { Authorization: 'Bearer wrong-token' }],
    ['another scheme', { Authorization: `Basic ${TOKEN}` }],
    ['an empty bearer token', { Authorization: 'Bearer ' }],
  ])('%s: 401 in SCIM form, with WWW-Authenticate, before anything is read', async (_name, headers) => {
    const response = await request(app).post('/scim/v2/Users').set(headers).set('Content-Type', 'application/scim+json').send(JSON.stringify(ADA));
    expectScimError(response, 401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="scim"');
    expect(members.rows.size).toBe(0);
    expect(lines).toEqual([{ level: 'warn', message: 'provisioning', fields: { outcome: expect.stringMatching(/^refused:/), requestId: expect.any(String) } }]);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });

  test('a wrong token is checked with the client address; a lock is 429 with Retry-After; no token is not counted', async () => {
    await request(app).get('/scim/v2/Users');
    expect(addresses).toEqual([]);
    for (const expected of [401, 401, 429]) expectScimError(await request(app).get('/scim/v2/Users').set('Authorization', 'Bearer wrong-token'), expected);
    expect(addresses).toEqual(['192.0.2.7', '192.0.2.7', '192.0.2.7']);
    const locked = await request(app).get('/scim/v2/Users').set('Authorization', 'Bearer wrong-token');
    expect(locked.headers['retry-after']).toBe('300');
    expect(locked.headers['www-authenticate']).toBeUndefined();
    expect(lines.map(({ fields }) => fields.outcome)).toEqual(['refused:no-token', 'refused:token', 'refused:token', 'refused:throttled', 'refused:throttled']);
  });

  test('the scheme in any case', async () => {
    expect((await request(app).get('/scim/v2/Users').set('Authorization', `bearer ${TOKEN}`)).status).toBe(200);
  });

  test('discovery needs the token too', async () => {
    expectScimError(await request(app).get('/scim/v2/ServiceProviderConfig'), 401);
  });
});

describe('discovery', () => {
  test('/ServiceProviderConfig says what is supported, truthfully', async () => {
    const response = await scim.get('/ServiceProviderConfig');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/scim+json; charset=utf-8');
    expect(response.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: true },
      sort: { supported: true },
      etag: { supported: true },
      authenticationSchemes: [{ type: 'oauthbearertoken', primary: true }],
      meta: { location: 'https://ams.example/scim/v2/ServiceProviderConfig' },
    });
  });

  test('/ResourceTypes: User, with the member extension, and Group', async () => {
    const list = await scim.get('/ResourceTypes');
    expect(list.body).toMatchObject({
      totalResults: 2,
      Resources: [
        { id: 'User', endpoint: '/Users', schemaExtensions: [{ schema: MEMBER_EXTENSION, required: false }, { schema: ENTERPRISE_EXTENSION, required: false }] },
        { id: 'Group', endpoint: '/Groups', schema: GROUP_SCHEMA },
      ],
    });
    expect((await scim.get('/ResourceTypes/User')).body).toEqual(list.body.Resources[0]);
    expect((await scim.get('/ResourceTypes/Group')).body).toEqual(list.body.Resources[1]);
    expectScimError(await scim.get('/ResourceTypes/Role'), 404);
  });

  test('/Schemas: the User attributes kept and the extension', async () => {
    const list = await scim.get('/Schemas');
    const ids = (list.body.Resources as Array<{ id: string }>).map(({ id }) => id);
    expect(ids).toEqual(['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE_EXTENSION, MEMBER_EXTENSION, GROUP_SCHEMA]);
    const user = list.body.Resources[0] as { attributes: Array<{ name: string; mutability: string; returned: string }> };
    expect(user.attributes.map(({ name }) => name)).toEqual(['userName', 'name', 'displayName', 'emails', 'active', 'password', 'roles', 'title', 'preferredLanguage', 'locale', 'timezone', 'phoneNumbers', 'addresses', 'groups']);
    expect(user.attributes.find(({ name }) => name === 'groups')).toMatchObject({ mutability: 'readOnly' });
    expect(user.attributes.find(({ name }) => name === 'password')).toMatchObject({ mutability: 'writeOnly', returned: 'never' });
    const extension = await scim.get(`/Schemas/${MEMBER_EXTENSION}`);
    expect((extension.body.attributes as Array<{ name: string }>).map(({ name }) => name)).toEqual([
      'isMember',
      'contactNumber',
      'labelName',
      'organisationId',
      'organisationName',
      'priceLevelId',
      'priceLevelName',
      'extra',
    ]);
  });
});

describe('Entra ID', () => {
  test('its first probe for a user that does not exist: an empty ListResponse, not 404', async () => {
    const response = await scim.get('/Users?filter=userName+eq+%22Test_User_dfeef4c5%22');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
  });

  test('create, find by userName and by work email, update with capitalised ops, disable with "False", delete', async () => {
    const { id } = await created();
    const found = await scim.get(`/Users?filter=${encodeURIComponent('userName eq "ADA@example.com"')}`);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id, userName: 'ada@example.com' }] });
    const byEmail = await scim.get(`/Users?filter=${encodeURIComponent('emails[type eq "work"].value eq "ada@example.com"')}`);
    expect(byEmail.body.totalResults).toBe(1);

    const updated = await scim.send('patch', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'countess@example.com' },
        { op: 'Add', path: 'title', value: 'Countess' },
        { op: 'Replace', value: { 'name.givenName': 'Augusta', displayName: 'The Countess' } },
      ],
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, emails: [{ value: 'countess@example.com' }], name: { givenName: 'Augusta' }, displayName: 'The Countess', meta: { version: 'W/"2"' } });
    expect(updated.headers.etag).toBe('W/"2"');

    const disabled = await scim.send('patch', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    expect(disabled.body.active).toBe(false);

    expect((await scim.delete(`/Users/${id}`)).status).toBe(204);
    expectScimError(await scim.get(`/Users/${id}`), 404);
    expect(changes()).toEqual([
      { outcome: 'created', client: 'entra', member: id, requestId: expect.any(String) },
      { outcome: 'modified', client: 'entra', member: id, requestId: expect.any(String) },
      { outcome: 'modified', client: 'entra', member: id, requestId: expect.any(String) },
      { outcome: 'removed', client: 'entra', member: id, requestId: expect.any(String) },
    ]);
  });
});

describe('Okta', () => {
  test('its connection test: GET /Users?startIndex=1&count=2', async () => {
    await created();
    await created({ ...ADA, userName: 'grace', externalId: 'ext-grace' });
    await created({ ...ADA, userName: 'hedy', externalId: 'ext-hedy' });
    const response = await scim.get('/Users?startIndex=1&count=2');
    expect(response.body).toMatchObject({ totalResults: 3, startIndex: 1, itemsPerPage: 2 });
    expect((response.body.Resources as Array<{ userName: string }>).map(({ userName }) => userName)).toEqual(['ada@example.com', 'grace']);
  });

  test('deactivation by PUT of the whole user it read, then a PATCH that changes nothing writes nothing', async () => {
    const { id } = await created({ ...ADA, [MEMBER_EXTENSION]: { organisationId: 'O-1' } });
    const read = (await scim.get(`/Users/${id}`)).body as Record<string, unknown>;
    const put = await scim.send('put', `/Users/${id}`, { ...read, active: false });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ active: false, [MEMBER_EXTENSION]: { organisationId: 'O-1' }, meta: { version: 'W/"2"' } });

    const again = await scim.send('patch', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] });
    expect(again.status).toBe(200);
    expect(again.headers.etag).toBe('W/"2"');
    expect(changes().map(({ outcome }) => outcome)).toEqual(['created', 'replaced']);
  });
});

describe('/Users', () => {
  test('create: 201 with Location, ETag and meta; the password is kept but never shown or logged', async () => {
    const response = await scim.send('post', '/Users', { ...ADA, password: 'correct horse battery' });
    expect(response.status).toBe(201);
    const id = response.body.id as string;
    expect(response.headers.location).toBe(`https://ams.example/scim/v2/Users/${id}`);
    expect(response.headers.etag).toBe('W/"1"');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body.meta).toEqual({ resourceType: 'User', created: expect.any(String), lastModified: expect.any(String), location: response.headers.location, version: 'W/"1"' });
    expect(members.passwords.get(id)).toBe('correct horse battery');
    expect(response.text).not.toContain('correct horse');
    expect(JSON.stringify(lines)).not.toContain('correct horse');
  });

  test('a userName taken, in any case: 409 uniqueness; an email shared with another member is fine', async () => {
    await created();
    expectScimError(await scim.send('post', '/Users', { ...ADA, userName: 'ADA@EXAMPLE.COM' }), 409, 'uniqueness');
    const { id } = await created({ ...ADA, userName: 'ada-2' });
    expect((await scim.get(`/Users/${id}`)).body.emails).toEqual([{ value: 'ada@example.com', type: 'work', primary: true }]);
  });

  test("the service's refusal of a value: 400 invalidValue with its reason", async () => {
    const { id } = await created();
    const response = await scim.send('patch', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'password', value: 'short' }] });
    expectScimError(response, 400, 'invalidValue');
    expect(response.body.detail).toBe('A member password must be at least 8 characters long');
  });

  test('GET: ETag, and 304 for an If-None-Match naming it', async () => {
    const { id, etag } = await created();
    const response = await scim.get(`/Users/${id}`);
    expect([response.status, response.headers.etag]).toEqual([200, etag]);
    const notModified = await scim.get(`/Users/${id}`).set('If-None-Match', etag);
    expect([notModified.status, notModified.text]).toEqual([304, '']);
  });

  test('If-Match naming an older version: 412 and nothing changes; naming the current one: the change is made', async () => {
    const { id, etag } = await created();
    const body = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'X' }] };
    expectScimError(await scim.send('patch', `/Users/${id}`, body).set('If-Match', 'W/"0"'), 412);
    expectScimError(await scim.send('put', `/Users/${id}`, ADA).set('If-Match', 'W/"0"'), 412);
    expectScimError(await scim.delete(`/Users/${id}`).set('If-Match', 'W/"0"'), 412);
    expect(members.rows.get(id)?.version).toBe(1);
    const response = await scim.send('patch', `/Users/${id}`, body).set('If-Match', etag);
    expect([response.status, response.body.displayName]).toEqual([200, 'X']);
    expect((await scim.delete(`/Users/${id}`).set('If-Match', response.headers.etag as string)).status).toBe(204);
  });

  test('a change by someone else between read and write: tried 8 times from a fresh read, then 409; 412 when the client named a version', async () => {
    const { id, etag } = await created();
    const body = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'X' }] };
    members.staleWrites = 100;
    expectScimError(await scim.send('patch', `/Users/${id}`, { ...body, Operations: [{ op: 'replace', path: 'displayName', value: 'Y' }] }), 409);
    const attempts = 100 - members.staleWrites;
    expect(attempts).toBe(8);
    members.staleWrites = attempts - 1;
    expect((await scim.send('patch', `/Users/${id}`, body)).body.displayName).toBe('X');
    const current = `W/"${members.rows.get(id)?.version}"`;
    expect(current).not.toBe(etag);
    members.staleWrites = 1;
    expectScimError(await scim.send('patch', `/Users/${id}`, { ...body, Operations: [{ op: 'replace', path: 'displayName', value: 'Z' }] }).set('If-Match', current), 412);
  });

  test('PATCH, PUT and DELETE of a User that does not exist: 404', async () => {
    expectScimError(await scim.send('patch', '/Users/nobody', { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] }), 404);
    expectScimError(await scim.send('put', '/Users/nobody', ADA), 404);
    expectScimError(await scim.delete('/Users/nobody'), 404);
  });

  test('paging: totalResults counts all, Resources holds the page; count=0 gives only the total', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) await created({ userName: name });
    const page = await scim.get('/Users?startIndex=2&count=2');
    expect(page.body).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
    expect((page.body.Resources as Array<{ userName: string }>).map(({ userName }) => userName)).toEqual(['b', 'c']);
    expect((await scim.get('/Users?count=0')).body).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
  });

  test('attributes and excludedAttributes shape the answers', async () => {
    const { id } = await created();
    expect((await scim.get(`/Users/${id}?attributes=userName`)).body).toEqual({ schemas: ADA.schemas, id, userName: 'ada@example.com' });
    const list = await scim.get('/Users?excludedAttributes=meta,name,emails');
    expect(Object.keys(list.body.Resources[0] as object)).toEqual(['schemas', 'id', 'externalId', 'userName', 'displayName', 'active']);
  });

  test('a filter outside the supported forms: 400 invalidFilter; a bad count: 400 invalidValue', async () => {
    expectScimError(await scim.get(`/Users?filter=${encodeURIComponent('userName xx "a"')}`), 400, 'invalidFilter');
    expectScimError(await scim.get(`/Users?filter=${encodeURIComponent('nickName eq "a"')}`), 400, 'invalidFilter');
    expectScimError(await scim.get('/Users?filter=a&filter=b'), 400, 'invalidValue');
    expectScimError(await scim.get('/Users?count=many'), 400, 'invalidValue');
  });

  test('application/json is read as well as application/scim+json', async () => {
    const response = await request(app).post('/scim/v2/Users').set(AUTH).set('Content-Type', 'application/json; charset=utf-8').send(JSON.stringify(ADA));
    expect(response.status).toBe(201);
  });
});

describe('bodies refused', () => {
  const post = (contentType: string, body: string | Buffer) => request(app).post('/scim/v2/Users').set(AUTH).set('Content-Type', contentType).send(body);

  test('over the body limit: 413', async () => {
    const body = JSON.stringify({ ...ADA, displayName: 'x'.repeat(MAX_BODY_BYTES) });
    expectScimError(await post('application/scim+json', body), 413);
  });

  test('not JSON by its type: 415; compressed: 415', async () => {
    expectScimError(await post('text/plain', JSON.stringify(ADA)), 415);
    expectScimError(await post('application/x-www-form-urlencoded', 'userName=ada'), 415);
    expectScimError(await request(app).post('/scim/v2/Users').set(AUTH).set('Content-Type', 'application/scim+json').set('Content-Encoding', 'gzip').send('x'), 415);
  });

  test('not JSON by its content, nested too deep, or missing: 400 invalidSyntax', async () => {
    expectScimError(await post('application/scim+json', '{"userName":'), 400, 'invalidSyntax');
    expectScimError(await post('application/scim+json', `{"userName":"a","x":${'['.repeat(1000)}${']'.repeat(1000)}}`), 400, 'invalidSyntax');
    expectScimError(await request(app).post('/scim/v2/Users').set(AUTH).set('Content-Type', 'application/scim+json'), 400, 'invalidSyntax');
    expect(members.rows.size).toBe(0);
  });
});

describe('other refusals', () => {
  test('a method /Users does not take: 405 with Allow', async () => {
    const response = await scim.delete('/Users');
    expectScimError(response, 405);
    expect(response.headers.allow).toBe('GET, POST');
  });

  test('an endpoint that does not exist (no Bulk, no Me): 404', async () => {
    expectScimError(await scim.get('/Me'), 404);
    expectScimError(await scim.send('post', '/Bulk', {}), 404);
  });

  test('a store failure: 500 without details, and an error line', async () => {
    members.broken = true;
    const response = await scim.get('/Users');
    expectScimError(response, 500);
    expect(response.text).not.toContain('the store is gone');
    expect(lines).toEqual([{ level: 'error', message: 'provisioning: unhandled error', fields: { path: '/scim/v2/Users', error: 'the store is gone', requestId: expect.any(String) } }]);
  });
});
