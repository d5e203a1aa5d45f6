import type { Services } from '../../src/service/index.js';
import type { Store } from '../../src/store/store.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { servicesOver, tempServices } from '../helpers/test-services.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let store: Store;
let cleanup: () => Promise<void>;
let services: Services;

beforeEach(async () => {
  ({ store, services, cleanup } = await tempServices());
});
afterEach(() => cleanup());

const reasonOf = async (promise: Promise<unknown>) => (await serviceErrorOf(promise)).message;

describe('add with attributes', () => {
  it('stores the checked attributes, and {} when none are given', async () => {
    const added = await services.members.add({
      id: 'm1',
      username: 'ada',
      attributes: { isMember: true, labelName: ' Gold ', contactNumber: '', roles: [{ id: 'r1', name: 'Editor' }] },
    });
    expect(added.attributes).toStrictEqual({ isMember: true, labelName: 'Gold', roles: [{ id: 'r1', name: 'Editor' }] });
    expect((await store.getMember('m1'))?.attributes).toStrictEqual(added.attributes);
    expect((await services.members.add({ id: 'm2', username: 'bob' })).attributes).toStrictEqual({});
  });

  it('refuses attributes that are not valid, and stores nothing', async () => {
    const reason = await reasonOf(services.members.add({ id: 'm1', username: 'ada', attributes: { extra: { 'bad key': 'v' } } }));
    expect(reason).toMatch(/^The member record is not valid: the extra attribute "bad key" needs a name/);
    expect(await services.members.list()).toEqual([]);
  });
});

describe("id format 'any' (the default)", () => {
  it('keeps the id as given, trimmed', async () => {
    expect((await services.members.add({ id: ' Member-42 ', username: 'ada' })).id).toBe('Member-42');
  });

  it('refuses a missing or empty id with the text it always had', async () => {
    for (const id of [undefined, '', '  ']) {
      expect(await reasonOf(services.members.add({ id, username: 'ada' }))).toBe(
        'The member record is not valid: id and username are required',
      );
    }
  });
});

describe("id format 'guid'", () => {
  beforeEach(() => {
    services = servicesOver(store, { memberIdFormat: 'guid' });
  });

  it('issues a new GUID when the id is missing or empty', async () => {
    const first = await services.members.add({ username: 'ada' });
    const second = await services.members.add({ id: ' ', username: 'bob' });
    expect(first.id).toMatch(GUID);
    expect(second.id).toMatch(GUID);
    expect(first.id).not.toBe(second.id);
    await expect(services.members.get(first.id)).resolves.toMatchObject({ username: 'ada' });
  });

  it('stores a given GUID lower-cased', async () => {
    const added = await services.members.add({ id: ' 0F8FAD5B-D9CB-469F-A165-70867728950E ', username: 'ada' });
    expect(added.id).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
    await expect(services.members.exists('0f8fad5b-d9cb-469f-a165-70867728950e')).resolves.toBe(true);
  });

  it('finds, changes and removes a member by its GUID in any case', async () => {
    const { id } = await services.members.add({ username: 'ada' });
    const upper = ` ${id.toUpperCase()} `;
    await expect(services.members.get(upper)).resolves.toMatchObject({ id });
    await expect(services.members.update(upper, { firstName: 'Ada' })).resolves.toMatchObject({ id, firstName: 'Ada' });
    await services.members.setPassword(upper, 'correct horse battery staple');
    await services.members.setEnabled(upper, false);
    await expect(services.members.get(id)).resolves.toMatchObject({ enabled: false });
    await services.members.remove(upper);
    await expect(services.members.exists(id)).resolves.toBe(false);
  });

  it('refuses the same GUID in another case as the same id', async () => {
    await services.members.add({ id: '0f8fad5b-d9cb-469f-a165-70867728950e', username: 'ada' });
    expect((await serviceErrorOf(services.members.add({ id: '0F8FAD5B-D9CB-469F-A165-70867728950E', username: 'bob' }))).code).toBe(
      'MEMBER_EXISTS',
    );
  });

  it.each([
    'member-42',
    '{0f8fad5b-d9cb-469f-a165-70867728950e}',
    '0f8fad5bd9cb469fa16570867728950e',
    '0f8fad5b-d9cb-469f-a165-70867728950',
    '0f8fad5b-d9cb-469f-a165-70867728950e0',
    'gf8fad5b-d9cb-469f-a165-70867728950e',
  ])('refuses the id %j', async (id) => {
    expect(await reasonOf(services.members.add({ id, username: 'ada' }))).toBe(
      'The member record is not valid: the id is not a GUID (8-4-4-4-12 hex digits, no braces)',
    );
    expect(await services.members.list()).toEqual([]);
  });
});

describe('update', () => {
  beforeEach(async () => {
    await services.members.add({
      id: 'm1',
      username: 'ada',
      email: 'ada@example.org',
      firstName: 'Ada',
      lastName: 'Lovelace',
      attributes: { isMember: true, extra: { tier: 'gold' } },
    });
  });

  it('changes only the fields given, trimmed, and returns the member', async () => {
    const updated = await services.members.update('m1', { firstName: ' Augusta ' });
    expect(updated).toMatchObject({ username: 'ada', email: 'ada@example.org', firstName: 'Augusta', lastName: 'Lovelace' });
    expect(updated.attributes).toStrictEqual({ isMember: true, extra: { tier: 'gold' } });
    await expect(services.members.get('m1')).resolves.toStrictEqual(updated);
  });

  it('replaces the attributes whole, checked', async () => {
    const updated = await services.members.update('m1', { attributes: { labelName: ' Silver ', isMember: undefined } });
    expect(updated.attributes).toStrictEqual({ labelName: 'Silver' });
    expect((await services.members.update('m1', { attributes: {} })).attributes).toStrictEqual({});
  });

  it('refuses a field longer than 256 characters and attributes that are not valid, and changes nothing', async () => {
    const before = await services.members.get('m1');
    expect(await reasonOf(services.members.update('m1', { lastName: 'x'.repeat(257) }))).toBe(
      'The member record is not valid: lastName is longer than 256 characters',
    );
    expect(await reasonOf(services.members.update('m1', { email: 'new@example.org', attributes: { roles: [{ id: '', name: 'A' }] } }))).toBe(
      'The member record is not valid: role 1 needs an id and a name',
    );
    await expect(services.members.get('m1')).resolves.toStrictEqual(before);
  });

  it('fails with MEMBER_NOT_FOUND for an unknown id', async () => {
    expect((await serviceErrorOf(services.members.update('ghost', { firstName: 'x' }))).code).toBe('MEMBER_NOT_FOUND');
  });

  it('reaches sessions verified from the cache at once', async () => {
    services = servicesOver(store, { cacheTtlMs: 60_000 });
    const { token } = await services.sessions.create('m1', 'example.org');
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true, found: { member: { attributes: { isMember: true } } } });
    await services.members.update('m1', { attributes: { isMember: false } });
    expect(await services.sessions.checkToken(token)).toMatchObject({ ok: true, found: { member: { attributes: { isMember: false } } } });
  });
});
