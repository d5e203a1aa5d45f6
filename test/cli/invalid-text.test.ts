/**
 * The CLI's way in for text no one types: a member file. A command line cannot carry a NUL, and arguments and
 * files are decoded with replacement, so no unpaired surrogate comes in either. A row holding a NUL is refused
 * with the reason, on both stores, the rows around it imported, and the command ends with the code of a refused
 * row (1); PostgreSQL, which cannot store a NUL, is never asked to.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Services } from '../../src/service/index.js';
import type { Store } from '../../src/store/store.js';
import { describeWithPostgres, tempPostgresStore } from '../helpers/postgres.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { servicesOver } from '../helpers/test-services.js';
import { runWith } from '../helpers/cli-harness.js';

const REASON = 'holds a character that is not valid text (U+0000 or an unpaired surrogate)';

function suite(openStore: () => Promise<{ store: Store; cleanup: () => Promise<void> }>): void {
  let services: Services;
  let cleanup: () => Promise<void>;
  let dir: string;

  beforeEach(async () => {
    let store: Store;
    ({ store, cleanup } = await openStore());
    services = servicesOver(store);
    dir = await mkdtemp(join(tmpdir(), 'invalid-text-'));
  });
  afterEach(async () => {
    await cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  const run = (...args: string[]) =>
    runWith(
      {
        config: () => {
          throw new Error('the admin commands under test do not read the configuration');
        },
        withServices: (fn) => fn(services),
      },
      ...args,
    );

  it.each([
    ['UTF-8', (text: string) => Buffer.from(text, 'utf8')],
    ['UTF-16', (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
  ])('members import refuses a row holding U+0000 (in %s), with the reason, and imports the others', async (_encoding, encode) => {
    const file = join(dir, 'members.csv');
    await writeFile(file, encode(['id,username,first_name', 'm1,ada,Ada', 'm2,bob\u0000,Bob', 'm3,cy,C\u0000y', 'm4,di,Di', ''].join('\n')));
    const result = await run('members', 'import', file, '--json');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      refused: [
        { line: 3, id: 'm2', reason: `The member record is not valid: username ${REASON}` },
        { line: 4, id: 'm3', reason: `The member record is not valid: firstName ${REASON}` },
      ],
      summary: { imported: 2, refused: 2 },
    });
    expect((await services.members.list()).map((member) => member.id).sort()).toEqual(['m1', 'm4']);
  });
}

describe('on SQLite', () => suite(tempSqliteStore));
describeWithPostgres('on PostgreSQL', () => suite(tempPostgresStore));
