import { parseLocation, StoreJobRefusal } from '../../src/store/maintenance/index.js';
import type { Table } from '../../src/store/maintenance/database.js';
import { referencedFirst, withDependents } from '../../src/store/maintenance/table-order.js';
import { sqlitePath } from '../../src/store/open.js';

const table = (name: string, ...references: string[]): Table => ({ name, columns: [], references, sequenceColumn: null });

describe('the order of the tables', () => {
  test('puts each table after those it refers to, by name where nothing else decides', () => {
    const tables = [table('sessions', 'members'), table('links', 'sessions', 'members'), table('members'), table('callers'), table('origins', 'callers')];
    expect(referencedFirst(tables).map((t) => t.name)).toEqual(['callers', 'members', 'origins', 'sessions', 'links']);
  });

  test('refuses tables that refer to each other', () => {
    expect(() => referencedFirst([table('a', 'b'), table('b', 'a'), table('c')])).toThrow(new StoreJobRefusal('the tables a, b refer to each other: they cannot be copied one after the other'));
  });

  test('finds what goes with a table: the tables that refer to it, directly or through others', () => {
    const tables = [table('members'), table('sessions', 'members'), table('links', 'sessions'), table('sps'), table('participants', 'sessions', 'sps')];
    expect([...withDependents(tables, ['sessions'])].sort()).toEqual(['links', 'participants', 'sessions']);
  });
});

describe('a store location', () => {
  test('file: names a SQLite file, or the data directory file of a directory, existing or ending in /', () => {
    expect(parseLocation('file:/var/lib/asmx/store.sqlite')).toEqual({ sqlite: '/var/lib/asmx/store.sqlite' });
    expect(parseLocation('file:///var/lib/asmx/store.sqlite')).toEqual({ sqlite: '/var/lib/asmx/store.sqlite' });
    expect(parseLocation('file:/tmp')).toEqual({ sqlite: sqlitePath('/tmp') });
    expect(parseLocation('file:/var/lib/not-there-yet/')).toEqual({ sqlite: sqlitePath('/var/lib/not-there-yet') });
    expect(parseLocation('postgresql://db/asmx')).toEqual({ postgresql: 'postgresql://db/asmx' });
  });
});
