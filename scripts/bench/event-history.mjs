#!/usr/bin/env node
// @ts-check
/**
 * `npm run bench:history`: figures, not a test. `npm run bench`'s history section alone (scripts/bench/history.mjs):
 * one member's history among BENCH_EVENTS events (a million), as the staff console reads it, on the embedded store
 * and, when DATABASE_URL is set, on PostgreSQL. Writes bench/results/history.md and history.json; exits 0 whatever
 * the figures.
 *
 * Settings (environment; BENCH_LOG_LEVEL, BENCH_SERVICE_<X> and DATABASE_URL as for `npm run bench`):
 *   BENCH_EVENTS       events in the store (1000000)
 *   BENCH_MEMBERS      members, among whom the events are shared out (10000)
 *   BENCH_REPEATS      reads of the history query, after the first (200)
 *   BENCH_CONNECTIONS  concurrent connections asking for the member's page (4: a few staff at once)
 *   BENCH_DURATION     seconds of the measured run of the page (10)
 *   BENCH_WARMUP       seconds of warm-up of the page (2)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { HISTORY_HEADER, historyNote, historyRow, historySettings, measureHistory, memberEventCount } from './history.mjs';
import { loadGenerator } from './load.mjs';
import { cleanUp, int, machine, round } from './runs.mjs';
import { ROOT } from './service.mjs';

const RESULTS_DIR = join(ROOT, 'bench', 'results');
const settings = historySettings('BENCH_');
const databaseUrl = process.env.DATABASE_URL || undefined;
/** @type {Array<'sqlite' | 'postgresql'>} */
const stores = databaseUrl ? ['sqlite', 'postgresql'] : ['sqlite'];

/** @param {any} report @returns {string} */
function markdown(report) {
  const m = report.machine;
  const s = report.settings;
  return [
    `Machine: ${m.cpuModel}, ${m.cpuCount} CPUs, ${m.totalMemoryGiB} GiB, ${m.os}, Node ${m.node}; ${s.loadGenerator} in the bench's own process on the same machine. Load average ${report.loadAverage.start.join(' / ')} at the start, ${report.loadAverage.end.join(' / ')} at the end.`,
    `Run ${report.date}: ${historyNote(s)}; service with LOG_LEVEL=${s.logLevel}${Object.keys(s.serviceEnv).length ? `, ${Object.entries(s.serviceEnv).map(([k, v]) => `${k}=${v}`).join(', ')}` : ''}.`,
    '',
    ...HISTORY_HEADER,
    ...report.results.map(historyRow),
    '',
  ].join('\n');
}

async function benchmark() {
  const tool = loadGenerator();
  const loadAtStart = os.loadavg().map((n) => round(n, 2));
  console.log(`bench:history: ${int(settings.events)} events among ${int(settings.members)} members; stores: ${stores.join(', ')}; load average ${loadAtStart.join(' / ')}`);
  const date = new Date().toISOString();
  const results = [];
  for (const store of stores) results.push(await measureHistory(store, settings, databaseUrl));
  const report = {
    date,
    machine: machine(),
    loadAverage: { start: loadAtStart, end: os.loadavg().map((n) => round(n, 2)) },
    settings: { ...settings, loadGenerator: tool.version },
    memberEvents: memberEventCount(settings),
    results,
  };
  const table = markdown(report);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'history.md'), `# One member's history among many events: latest run\n\nWritten by \`npm run bench:history\` (scripts/bench/event-history.mjs); figures, not a test.\n\n${table}`);
  writeFileSync(join(RESULTS_DIR, 'history.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\n${table}`);
  console.log('written: bench/results/history.md, bench/results/history.json');
}

try {
  await benchmark();
} catch (error) {
  console.error(`\nbench:history failed: ${error instanceof Error ? error.message : String(error)}`);
  await cleanUp();
  process.exitCode = 1;
}
