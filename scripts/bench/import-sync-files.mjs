// @ts-check
/**
 * The files of the import-sync figures (docs/performance.md, "Keeping members in step"): a first export of N
 * members, and the export a week later, which lists as many rows: 1% of the members are missing from it (they
 * left), 10% have changed (a new email, a lapsed membership, a new surname or a new role, in turn), and as many
 * new members as left have joined.
 *
 *   node scripts/bench/import-sync-files.mjs DIR [ROWS]     writes DIR/first.csv and DIR/week.csv (ROWS: 200000)
 *
 * Then `members import DIR/first.csv`, and `members import DIR/week.csv --update --disable-missing [--dry-run]`.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';

const HEADER = 'id,username,email,first_name,last_name,is_member,roles';
/** Every hundredth member is missing from the week's file (n = 100, 200, …); every tenth has changed (n = 5, 15, …). */
const MISSING_EVERY = 100;
const CHANGED_EVERY = 10;
const CHANGED_AT = 5;

/** @param {number} n @param {{ email?: string, lastName?: string, isMember?: string, roles?: string }} [changes] */
function row(n, changes = {}) {
  const { email = `member${n}@example.org`, lastName = `Number ${n}`, isMember = 'yes', roles = 'r1:Reader' } = changes;
  return `m${n},member${n},${email},Member,${lastName},${isMember},${roles}\n`;
}

/** The changes of the week for member n, one kind in turn. @param {number} n */
function changed(n) {
  const kinds = [{ email: `member${n}@example.net` }, { isMember: 'no' }, { lastName: `Number ${n}-Smith` }, { roles: 'r1:Reader|r2:Editor' }];
  return kinds[Math.floor(n / CHANGED_EVERY) % kinds.length];
}

/** @param {string} path @param {(write: (text: string) => Promise<void>) => Promise<void>} rows */
async function writeFile(path, rows) {
  const out = createWriteStream(path);
  const write = async (/** @type {string} */ text) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`${HEADER}\n`);
  await rows(write);
  out.end();
  await once(out, 'finish');
}

const [dir, rowsArgument = '200000'] = process.argv.slice(2);
const rows = Number(rowsArgument);
if (!dir || !Number.isSafeInteger(rows) || rows < MISSING_EVERY) {
  console.error('usage: node scripts/bench/import-sync-files.mjs DIR [ROWS, at least 100]');
  process.exit(2);
}
await writeFile(join(dir, 'first.csv'), async (write) => {
  for (let n = 1; n <= rows; n++) await write(row(n));
});
await writeFile(join(dir, 'week.csv'), async (write) => {
  for (let n = 1; n <= rows; n++) {
    if (n % MISSING_EVERY === 0) continue;
    await write(n % CHANGED_EVERY === CHANGED_AT ? row(n, changed(n)) : row(n));
  }
  for (let n = rows + 1; n <= rows + Math.floor(rows / MISSING_EVERY); n++) await write(row(n));
});
