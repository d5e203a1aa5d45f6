#!/usr/bin/env node
// @ts-check
/**
 * Times one member's history as the staff console reads it, the store's query alone (Store.listEvents for the
 * member, newest first, `limit` rows): the first read after the store opens, then `repeats` reads one after the
 * other. Run as a child process of scripts/bench/event-history.mjs with the service's settings in its environment
 * (DATA_DIR or DATABASE_URL) and what to read in BENCH_HISTORY (JSON: memberId, limit, repeats); prints one JSON
 * line with the times in milliseconds.
 */
import { loadConfig } from '../../dist/config/config.js';
import { openStore } from '../../dist/store/open.js';
import { percentile } from './load.mjs';

/** @type {{ memberId: string, limit: number, repeats: number }} */
const request = JSON.parse(process.env.BENCH_HISTORY ?? 'null');
const config = loadConfig(process.env);
const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
try {
  const read = async () => {
    const startedAt = performance.now();
    const rows = await store.listEvents({ memberId: request.memberId, limit: request.limit });
    return { ms: performance.now() - startedAt, rows: rows.length };
  };
  const first = await read();
  const times = new Float64Array(request.repeats);
  for (let i = 0; i < request.repeats; i++) times[i] = (await read()).ms;
  times.sort();
  console.log(
    JSON.stringify({
      rows: first.rows,
      firstMs: first.ms,
      p50Ms: percentile(times, 0.5),
      p99Ms: percentile(times, 0.99),
      maxMs: times[times.length - 1] ?? NaN,
    }),
  );
} finally {
  await store.close();
}
