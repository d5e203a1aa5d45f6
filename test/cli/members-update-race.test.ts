/**
 * Two admins running `members update` on one member at the same moment: each merges its options into the member
 * it read, and writes only if nobody changed the member since; otherwise it merges again into a fresh read.
 * Neither change is lost, and an update that cannot get through says so (exit 1) rather than overwrite.
 */
import type { CliContext } from '../../src/cli/context.js';
import type { Store } from '../../src/store/store.js';
import { runWith } from '../helpers/cli-harness.js';
import { changedAfterEveryRead, raceGroundForEachTest, readingTogether } from '../helpers/member-races.js';
import { describeWithPostgres, tempPostgresStore } from '../helpers/postgres.js';
import { type OpenStore, tempSqliteStore } from '../helpers/temp-store.js';
import { servicesOver } from '../helpers/test-services.js';

/** The CLI with its services over this store. */
const cliOver = (over: Store): Omit<CliContext, 'io'> => ({
  config: () => {
    throw new Error('members update does not read the configuration');
  },
  withServices: (fn) => fn(servicesOver(over)),
});

function racingUpdates(open: OpenStore): void {
  const ground = raceGroundForEachTest(open, { extra: { zone: 'eu' } });

  test('two updates of one member at once, each setting another attribute: both are kept', async () => {
    const cli = cliOver(readingTogether(ground.store));
    const results = await Promise.all([
      runWith(cli, 'members', 'update', 'm1', '--attribute', 'tier=gold'),
      runWith(cli, 'members', 'update', 'm1', '--label-name', 'Silver', '--remove-attribute', 'zone'),
    ]);
    expect(results.map((result) => [result.code, result.stderr])).toEqual([
      [0, ''],
      [0, ''],
    ]);
    expect((await ground.services.members.get('m1')).attributes).toStrictEqual({ labelName: 'Silver', extra: { tier: 'gold' } });
  });

  test('an update that meets another writer on every try exits 1, saying the member changed, and writes nothing', async () => {
    const result = await runWith(cliOver(changedAfterEveryRead(ground.store)), 'members', 'update', 'm1', '--attribute', 'tier=gold');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: .*changed by someone else.*try again\n$/);
    expect((await ground.services.members.get('m1')).attributes).toStrictEqual({ extra: { zone: 'eu' } });
  });
}

describe('SQLite', () => racingUpdates(tempSqliteStore));
describeWithPostgres('PostgreSQL', () => racingUpdates(tempPostgresStore));
