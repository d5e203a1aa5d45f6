import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { SQLITE_FILENAME } from '../../src/store/open.js';
import { compileCli } from '../helpers/compiled-cli.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * `members import` as operators run it, in a child process, on a generated file as large as the issue's:
 * 200,000 rows without passwords (id, username, email, first_name, last_name), on the embedded store; then the
 * same members kept in step with a later export (`--update --disable-missing`), in the same heap.
 */

const ROWS = 200_000;
/**
 * The JavaScript heap the import runs in, far smaller than the file's rows would take: an importer that held
 * them all could not finish. Node 24's V8 otherwise lets its young generation grow to 128 MiB of mostly garbage
 * on this import (v8.getHeapSpaceStatistics: new space 128 MiB, old space 13 MiB); 16 MiB is Node 20's default.
 */
const HEAP_LIMIT_MB = 64;
const SEMI_SPACE_MB = 16;
/**
 * Memory outside that heap which the program allocates (Buffers and typed arrays: the repeat check's tables,
 * about 13 MiB at 200,000 rows, and the file's chunks in flight), as V8 accounts it (`external`), sampled.
 * Seen: 15 to 19 MiB. Past this, the import keeps a buffer per row or per batch.
 */
const EXTERNAL_CEILING_MB = 48;
/**
 * Peak RSS as the kernel counts it: the heaps above, SQLite's page cache (16 MiB), the Node.js binary (about
 * 55 MiB of mapped file) and the allocator's own. 156 to 175 MiB on an idle or busy 2-core machine, but 301 and
 * 320 MiB in two CI runs under load, which other work inflates; a sanity bound only (the whole-file importer
 * peaked at 435 to 465 MiB without a heap limit, docs/performance.md).
 */
const RSS_CEILING_MB = 512;
/**
 * Without a terminal, a progress line comes once 100,000 more rows are written (or 10 s have passed, which on a
 * busy machine can be first: the test does not count on which). Rows are written in batches of at most 1000,
 * so the line for 100,000 more rows comes within one batch past them.
 */
const PROGRESS_EVERY_ROWS = 100_000;
const BATCH_ROWS = 1000;
/**
 * How long one import of the file may take before the test gives up on it: a guard against a hung import, not
 * a measure. It takes about 15 s on an idle 2-core machine, and several times that on a busy one.
 */
const IMPORT_TIMEOUT_MS = 180_000;

let cli: { cliPath: string; remove(): Promise<void> };
let dir: string;
let csv: string;
let reportMemory: string;
const children = new Set<ChildProcess>();

/** Member n's row, or null to leave member n out. */
type MemberLine = (n: number) => string | null;

const firstExport: MemberLine = (n) => `m${n},user${n},user${n}@example.org,First${n},Last${n}\n`;
/** A week later: every hundredth member gone, every tenth (5, 15, …) with a new email. */
const weekLaterExport: MemberLine = (n) => (n % 100 === 0 ? null : n % 10 === 5 ? `m${n},user${n},user${n}@example.net,First${n},Last${n}\n` : firstExport(n));

async function writeMembersFile(file: string, rows: number, line: MemberLine = firstExport): Promise<void> {
  const out = createWriteStream(file);
  out.write('id,username,email,first_name,last_name\n');
  for (let start = 1; start <= rows; start += 10_000) {
    const lines = [];
    for (let n = start; n < start + 10_000 && n <= rows; n++) lines.push(line(n) ?? '');
    if (!out.write(lines.join(''))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The compiled CLI importing `file` (the 200,000 rows unless given) in a child process, its peak memory printed on
 * stderr at exit (`peak external <n> MB, maxRSS <n> MB`).
 */
function startImport(dataDir: string, ...args: string[]): Run {
  return startImportOf(csv, dataDir, ...args);
}

function startImportOf(file: string, dataDir: string, ...args: string[]): Run {
  // A JavaScript heap far smaller than the file's rows would take: an importer that held them all could not finish.
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_LIMIT_MB}`, `--max-semi-space-size=${SEMI_SPACE_MB}`, '--require', reportMemory, cli.cliPath, 'members', 'import', file, ...args], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        children.delete(child);
        resolve({ code, signal });
      }),
    ),
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (run.stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
  return run;
}

/** How many members the store holds, and how many distinct ids and usernames among them. */
function storedMembers(dataDir: string): { count: number; ids: number; usernames: number } {
  const db = new Database(join(dataDir, SQLITE_FILENAME), { readonly: true });
  try {
    return db.prepare('SELECT count(*) AS count, count(DISTINCT id) AS ids, count(DISTINCT username) AS usernames FROM members').get() as {
      count: number;
      ids: number;
      usernames: number;
    };
  } finally {
    db.close();
  }
}

/** The rows done each `imported N of 200,000 rows` line on stderr reports, in order. */
function progressRows(stderr: string): number[] {
  return [...stderr.matchAll(/^imported ([\d,]+) of 200,000 rows\b/gm)].map((match) => Number((match[1] as string).replace(/,/g, '')));
}

function peakMemoryMb(stderr: string): { external: number; rss: number } {
  const match = /peak external (\d+) MB, maxRSS (\d+) MB/.exec(stderr);
  if (!match) throw new Error(`no peak memory line on stderr: ${stderr.slice(-500)}`);
  return { external: Number(match[1]), rss: Number(match[2]) };
}

beforeAll(async () => {
  [cli, dir] = await Promise.all([compileCli(), mkdtemp(join(tmpdir(), 'members-import-stream-'))]);
  csv = join(dir, 'members.csv');
  reportMemory = join(dir, 'report-memory.cjs');
  await writeFile(
    reportMemory,
    [
      'let external = 0;',
      'const sample = () => { external = Math.max(external, process.memoryUsage().external); };',
      'setInterval(sample, 50).unref();',
      "process.on('exit', () => { sample(); process.stderr.write(`peak external ${Math.round(external / 2 ** 20)} MB, maxRSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\\n`); });",
      '',
    ].join('\n'),
  );
  await writeMembersFile(csv, ROWS);
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await cli?.remove();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('members import of a 200,000-row file', () => {
  it(`streams it in a ${HEAP_LIMIT_MB} MB heap with under ${EXTERNAL_CEILING_MB} MB outside it, prints one JSON document of counts with --json, and a progress line at least every 100,000 rows`, async () => {
    const dataDir = join(dir, 'memory');
    const run = startImport(dataDir, '--json');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const report = JSON.parse(run.stdout) as { refused: unknown[]; summary: Record<string, unknown> };
    expect(report).toEqual({
      refused: [],
      summary: { rowsTotal: ROWS, rowsDone: ROWS, imported: ROWS, existing: 0, refused: 0, interrupted: false, seconds: expect.any(Number) },
    });
    expect(run.stderr).toMatch(/^200,000 imported, 0 already there, 0 refused, in [\d.]+ s\.$/m);
    expect(storedMembers(dataDir)).toEqual({ count: ROWS, ids: ROWS, usernames: ROWS });
    const peak = peakMemoryMb(run.stderr);
    expect(peak.external).toBeLessThan(EXTERNAL_CEILING_MB);
    expect(peak.rss).toBeLessThan(RSS_CEILING_MB);
    const rows = progressRows(run.stderr);
    expect(rows).not.toEqual([]);
    for (const [i, done] of rows.entries()) {
      const step = done - (rows[i - 1] ?? 0);
      expect(step).toBeGreaterThan(0);
      expect(step).toBeLessThan(PROGRESS_EVERY_ROWS + BATCH_ROWS);
    }
    expect(ROWS - (rows[rows.length - 1] as number)).toBeLessThan(PROGRESS_EVERY_ROWS + BATCH_ROWS);
  }, IMPORT_TIMEOUT_MS);

  // The dry run takes the same reading and paging path without the writes (test/cli/members-import-update.test.ts).
  it('keeps the 200,000 members in step in the same heap: --update --disable-missing', async () => {
    const dataDir = join(dir, 'in-step');
    expect(await startImport(dataDir).exited).toEqual({ code: 0, signal: null });
    const week = join(dir, 'week-later.csv');
    await writeMembersFile(week, ROWS, weekLaterExport);
    const run = startImportOf(week, dataDir, '--update', '--disable-missing', '--json');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const { summary, disabled } = JSON.parse(run.stdout) as { summary: Record<string, unknown>; disabled: unknown[] };
    expect(summary).toMatchObject({ imported: 0, updated: 20_000, unchanged: 178_000, disabled: 2000, refused: 0 });
    expect(disabled).toHaveLength(2000);
    expect(peakMemoryMb(run.stderr).external).toBeLessThan(EXTERNAL_CEILING_MB);
    const db = new Database(join(dataDir, SQLITE_FILENAME), { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) AS disabled FROM members WHERE enabled = 0 AND id LIKE '%00'").get()).toEqual({ disabled: 2000 });
      expect(db.prepare("SELECT count(*) AS changed FROM members WHERE email LIKE '%@example.net'").get()).toEqual({ changed: 20_000 });
    } finally {
      db.close();
    }
  }, 2 * IMPORT_TIMEOUT_MS);

  it('is finished by running it again after the process was killed mid-way, without a duplicate', async () => {
    const dataDir = join(dir, 'resume');
    const killed = startImport(dataDir);
    // Killed half way at the earliest: once a progress line says 100,000 rows or more are written.
    const halfWay = () => progressRows(killed.stderr).find((done) => done >= PROGRESS_EVERY_ROWS);
    await waitUntil(
      () => {
        if (killed.child.exitCode !== null) throw new Error(`the import exited (${killed.child.exitCode}) before it was killed: ${killed.stderr}`);
        return halfWay() !== undefined;
      },
      () => `a progress line at ${PROGRESS_EVERY_ROWS.toLocaleString('en-US')} rows or more: ${killed.stderr}`,
      { timeoutMs: IMPORT_TIMEOUT_MS },
    );
    killed.child.kill('SIGKILL');
    expect(await killed.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const before = storedMembers(dataDir);
    expect(before.count).toBeGreaterThanOrEqual(halfWay() as number);
    expect(before.count).toBeLessThan(ROWS);

    const again = startImport(dataDir);
    expect(await again.exited).toEqual({ code: 0, signal: null });
    const summary = new RegExp(`^${(ROWS - before.count).toLocaleString('en-US')} imported, ${before.count.toLocaleString('en-US')} already there, 0 refused, in [\\d.]+ s\\.$`, 'm');
    expect(again.stdout).toMatch(summary);
    expect(storedMembers(dataDir)).toEqual({ count: ROWS, ids: ROWS, usernames: ROWS });
  }, 2 * IMPORT_TIMEOUT_MS);
});
