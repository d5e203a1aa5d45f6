import { randomBytes } from 'node:crypto';
import type { ProvisionedFields } from '../../src/service/provisioning.js';
import type { Services } from '../../src/service/index.js';
import type { Store } from '../../src/store/store.js';
import { servicesOver } from '../helpers/test-services.js';
import { tempSqliteStore } from '../helpers/temp-store.js';

const PASSWORD = 'correct horse battery staple';
const DOMAIN = 'example.org';

let store: Store;
let cleanup: () => Promise<void>;
let now: number;
const clock = () => now;

beforeEach(async () => {
  ({ store, cleanup } = await tempSqliteStore());
  now = Date.UTC(2026, 0, 1);
});
afterEach(() => cleanup());

const ADA: ProvisionedFields = {
  externalId: ' ext-1 ',
  username: ' ada@example.com ',
  email: ' ada@example.com ',
  firstName: ' Ada ',
  lastName: 'Lovelace',
  displayName: ' Countess ',
  formattedName: ' Ada Lovelace ',
  enabled: true,
  attributes: { organisationId: 'O-1' },
};

async function createdOn(services: Services, fields: ProvisionedFields = ADA) {
  const result = await services.provisioning.create(fields);
  if (!result.ok) throw new Error(`not created: ${result.reason}`);
  return result.member;
}

describe('ProvisioningService', () => {
  test('create: a random UUID id, fields trimmed as members add trims them, version 1, updated when created', async () => {
    const services = servicesOver(store, { clock });
    const member = await createdOn(services);
    expect(member).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      externalId: 'ext-1',
      username: 'ada@example.com',
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      displayName: 'Countess',
      formattedName: 'Ada Lovelace',
      enabled: true,
      attributes: { organisationId: 'O-1' },
      createdAt: now,
      updatedAt: now,
      version: 1,
    });
    await expect(services.provisioning.get(member.id)).resolves.toEqual(member);
  });

  test('a refusal of the member checks is `invalid` with the reason; a username taken ignoring case is `userNameTaken`', async () => {
    const services = servicesOver(store, { clock });
    await createdOn(services);
    await expect(services.provisioning.create({ ...ADA, username: 'ADA@example.com' })).resolves.toEqual({ ok: false, reason: 'userNameTaken' });
    await expect(services.provisioning.create({ ...ADA, username: '  ' })).resolves.toEqual({ ok: false, reason: 'invalid', detail: 'The member record is not valid: username is required' });
    await expect(services.provisioning.create({ ...ADA, username: 'b', password: 'short' })).resolves.toEqual({
      ok: false,
      reason: 'invalid',
      detail: 'A member password must be at least 8 characters long',
    });
    await expect(services.provisioning.create({ ...ADA, username: 'c', displayName: 'x'.repeat(257) })).resolves.toMatchObject({ ok: false, reason: 'invalid' });
    expect((await services.provisioning.list({}, { offset: 0, limit: 10 })).total).toBe(1);
  });

  test('replace: every field at once, the version moved on, a stale version refused; the password set, kept or removed', async () => {
    const services = servicesOver(store, { clock });
    const first = await createdOn(services, { ...ADA, password: PASSWORD });
    now += 5000;
    const replaced = await services.provisioning.replace(first, { ...ADA, username: 'countess', externalId: null, displayName: null });
    expect(replaced).toEqual({ ok: true, member: expect.objectContaining({ username: 'countess', externalId: null, displayName: null, version: 2, updatedAt: now }) });
    await expect(services.provisioning.replace(first, { ...ADA, lastName: 'King' })).resolves.toEqual({ ok: false, reason: 'stale' });
    await expect(services.provisioning.replace({ ...first, id: 'nobody' }, { ...ADA, lastName: 'King' })).resolves.toEqual({ ok: false, reason: 'notFound' });
    const signIn = () => services.signin.checkCredentials({ login: 'countess', password: PASSWORD, clientAddress: '192.0.2.1' });
    await expect(signIn()).resolves.toMatchObject({ ok: true });
    const second = await services.provisioning.get(first.id);
    await services.provisioning.replace(second!, { ...ADA, username: 'countess', password: null });
    await expect(signIn()).resolves.toMatchObject({ ok: false });
  });

  test('replace: fields that are the member\'s once trimmed write nothing, whatever the order of the attributes; a password always writes', async () => {
    const services = servicesOver(store, { clock });
    const member = await createdOn(services, { ...ADA, attributes: { organisationId: 'O-1', roles: [{ id: 'r1', name: 'Reader' }], extra: { a: '1', b: '2' } } });
    now += 5000;
    const padded = { ...ADA, lastName: ' Lovelace\t', attributes: { extra: { b: '2 ', a: '1', c: ' ' }, roles: [{ id: 'r1 ', name: ' Reader' }], organisationId: 'O-1', labelName: '' } };
    await expect(services.provisioning.replace(member, padded)).resolves.toEqual({ ok: true, member });
    await expect(services.provisioning.get(member.id)).resolves.toEqual(member);
    await expect(services.provisioning.replace(member, { ...padded, enabled: false })).resolves.toMatchObject({ ok: true, member: { enabled: false, version: 2 } });
    const disabled = await services.provisioning.get(member.id);
    await expect(services.provisioning.replace(disabled!, { ...padded, enabled: false, password: PASSWORD })).resolves.toMatchObject({ ok: true, member: { version: 3 } });
  });

  test('remove: with the version read, or `stale`; the sessions go with the member', async () => {
    const services = servicesOver(store, { clock });
    const { id } = await createdOn(services);
    await services.sessions.create(id, DOMAIN);
    await expect(services.provisioning.remove(id, 7)).resolves.toBe('stale');
    await expect(services.provisioning.remove(id, 1)).resolves.toBe('removed');
    await expect(services.provisioning.remove(id)).resolves.toBe('notFound');
    await expect(store.listSessions({ memberId: id })).resolves.toEqual([]);
  });

  test('under GUID member ids, an id in capitals is found, as the other commands find it', async () => {
    const services = servicesOver(store, { clock, memberIdFormat: 'guid' });
    const { id } = await createdOn(services);
    await expect(services.provisioning.get(id.toUpperCase())).resolves.toMatchObject({ id });
    const found = await services.provisioning.list({ filter: { kind: 'compare', field: 'id', operator: 'eq', value: id.toUpperCase(), caseExact: true } }, { offset: 0, limit: 10 });
    expect(found.members.map((member) => member.id)).toEqual([id]);
  });

  test('a member disabled or removed stops verifying at once here, and within CACHE_TTL_MS on another instance', async () => {
    const options = { secretKey: randomBytes(32), clock, cacheTtlMs: 1000 };
    const here = servicesOver(store, options);
    const there = servicesOver(store, options);
    const member = await createdOn(here);
    const { token } = await here.sessions.create(member.id, DOMAIN);
    for (const services of [here, there]) await expect(services.sessions.checkToken(token)).resolves.toMatchObject({ ok: true });
    await here.provisioning.replace(member, { ...member, enabled: false });
    await expect(here.sessions.checkToken(token)).resolves.toEqual({ ok: false, reason: 'member-disabled' });
    await expect(there.sessions.checkToken(token)).resolves.toMatchObject({ ok: true });
    now += 1000;
    await expect(there.sessions.checkToken(token)).resolves.toEqual({ ok: false, reason: 'member-disabled' });
  });
});
