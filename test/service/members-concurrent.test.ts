/**
 * Two writers changing one member at the same moment (two admins, an admin and a provisioning client): every
 * write of the member is conditional on the version its writer read, so that no change is silently lost. A change
 * that is safe to apply again to a fresh read is retried; one made on a version named by its writer is refused.
 */
import type { MemberRow } from '../../src/service/index.js';
import { changedAfterEveryRead, raceGroundForEachTest, readingTogether } from '../helpers/member-races.js';
import { describeWithPostgres, tempPostgresStore } from '../helpers/postgres.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { type OpenStore, tempSqliteStore } from '../helpers/temp-store.js';
import { servicesOver } from '../helpers/test-services.js';

/** The member's attributes with one more, as `members update --label-name` and `--contact-number` merge them. */
const withAttribute = (key: 'labelName' | 'contactNumber', value: string) => (current: MemberRow) => ({ attributes: { ...current.attributes, [key]: value } });

function concurrentUpdates(open: OpenStore): void {
  const ground = raceGroundForEachTest(open, { isMember: true });

  test('a member starts at version 1, and every write of it moves the version on', async () => {
    expect((await ground.services.members.get('m1')).version).toBe(1);
    expect((await ground.services.members.update('m1', { firstName: 'Ada' })).version).toBe(2);
    await ground.services.members.setEnabled('m1', false);
    expect((await ground.services.members.get('m1')).version).toBe(3);
    await ground.services.members.setPassword('m1', 'correct horse battery staple');
    expect((await ground.services.members.get('m1')).version).toBe(4);
  });

  test('two updates merging different attributes at once both survive', async () => {
    const racing = servicesOver(readingTogether(ground.store));
    const updates = await Promise.all([
      racing.members.update('m1', withAttribute('labelName', 'Gold')),
      racing.members.update('m1', withAttribute('contactNumber', 'C-7')),
    ]);
    const stored = await ground.services.members.get('m1');
    expect(stored.attributes).toStrictEqual({ isMember: true, labelName: 'Gold', contactNumber: 'C-7' });
    expect(stored.version).toBe(3);
    expect(updates.map((member) => member.version).sort()).toEqual([2, 3]);
  });

  test('two updates of different fields at once both survive', async () => {
    const racing = servicesOver(readingTogether(ground.store));
    await Promise.all([racing.members.update('m1', { email: 'ada@example.org' }), racing.members.update('m1', withAttribute('labelName', 'Gold'))]);
    expect(await ground.services.members.get('m1')).toMatchObject({ email: 'ada@example.org', attributes: { isMember: true, labelName: 'Gold' }, version: 3 });
  });

  test('an update on a version named by its writer is refused once the member changed, and writes nothing', async () => {
    const { version } = await ground.services.members.get('m1');
    await ground.services.members.update('m1', { lastName: 'Lovelace' });
    const refused = await serviceErrorOf(ground.services.members.update('m1', { lastName: 'King' }, { expectedVersion: version }));
    expect(refused.code).toBe('MEMBER_CHANGED');
    expect(refused.message).toMatch(/changed by someone else.*try again/);
    expect(await ground.services.members.get('m1')).toMatchObject({ lastName: 'Lovelace', version: 2 });
    await expect(ground.services.members.update('m1', { lastName: 'King' }, { expectedVersion: 2 })).resolves.toMatchObject({ lastName: 'King', version: 3 });
  });

  test('an update that keeps meeting another writer is refused after its retries, never written over the other', async () => {
    const busy = servicesOver(changedAfterEveryRead(ground.store));
    const refused = await serviceErrorOf(busy.members.update('m1', withAttribute('labelName', 'Gold')));
    expect(refused.code).toBe('MEMBER_CHANGED');
    expect((await ground.services.members.get('m1')).attributes).toStrictEqual({ isMember: true });
  });

  test('an unknown member is still not found', async () => {
    expect((await serviceErrorOf(ground.services.members.update('ghost', withAttribute('labelName', 'Gold')))).code).toBe('MEMBER_NOT_FOUND');
  });
}

describe('SQLite', () => concurrentUpdates(tempSqliteStore));
describeWithPostgres('PostgreSQL', () => concurrentUpdates(tempPostgresStore));
