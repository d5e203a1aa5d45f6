// @ts-check
/**
 * What recording events costs the sign-ins, for `npm run bench`: the sign-in mix (SIGNIN_MIX in cases.mjs) sent to
 * two services alike but for EVENTS_ENABLED, each on a fresh store of its own, both measured in every round (the
 * order swapped from one round to the next, so that neither always runs second), and the events each wrote read
 * from its /metrics.
 */
import { SIGNIN_MIX } from './cases.mjs';
import { checkAnswer, cleanups, combine, ensureAlive, measure, median, ms, progress, round, sample, sleep } from './runs.mjs';
import { startService } from './service.mjs';

/** @typedef {'on' | 'off'} Events */

/** The events a service wrote, and lost, so far. @param {string} baseUrl */
async function eventsWritten(baseUrl) {
  const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  return { written: sample(text, 'events_written_total'), lost: sample(text, 'events_lost_total{cause="store"}') + sample(text, 'events_lost_total{cause="queue_full"}') };
}

/**
 * @param {import('./service.mjs').ServiceOptions} serviceOptions the bench's service settings; the mix adds its own
 * @param {{ connections: number, duration: number, warmup: number, pairs: number }} settings
 */
export async function measureEventsCost(serviceOptions, settings) {
  /** @param {Events} events */
  const start = async (events) => {
    const extraEnv = { ...serviceOptions.extraEnv, ...SIGNIN_MIX.serviceEnv, EVENTS_ENABLED: String(events === 'on') };
    const service = await startService({ ...serviceOptions, extraEnv });
    cleanups.push(service.cleanup, service.stop);
    return service;
  };
  /** @type {Record<Events, Awaited<ReturnType<typeof start>>>} */
  const services = { on: await start('on'), off: await start('off') };
  console.log(`-- ${SIGNIN_MIX.name}, events on (pid ${services.on.pid}) and off (pid ${services.off.pid}), each on a store of its own`);
  for (const [events, service] of /** @type {Array<[Events, typeof services.on]>} */ (Object.entries(services))) {
    const who = `the service with events ${events}`;
    await checkAnswer(`${SIGNIN_MIX.name} (right password)`, SIGNIN_MIX.request(service.seed, 'right'), service.baseUrl, { status: 200, includes: service.seed.member.id }, who);
    await checkAnswer(`${SIGNIN_MIX.name} (wrong password)`, SIGNIN_MIX.request(service.seed, 'wrong'), service.baseUrl, { status: 200, includes: 'Invalid username' }, who);
    await checkAnswer(`${SIGNIN_MIX.name} (unknown login)`, SIGNIN_MIX.request(service.seed, 'unknown'), service.baseUrl, { status: 200, includes: 'Invalid username' }, who);
  }
  const ours = [process.pid, services.on.pid, services.off.pid];
  /** @param {Events} events @param {number} duration */
  const load = (events, duration) => {
    const next = SIGNIN_MIX.traffic(services[events].seed);
    return measure({ baseUrl: services[events].baseUrl, request: next(), next, connections: settings.connections, duration }, ours, services[events].pid);
  };
  if (settings.warmup > 0) for (const events of /** @type {const} */ (['on', 'off'])) await load(events, settings.warmup);
  // The events of the warm-up, and after the runs those of their last batch, are written within EVENT_FLUSH_MS (1 s).
  await sleep(1500);
  const before = { on: await eventsWritten(services.on.baseUrl), off: await eventsWritten(services.off.baseUrl) };
  /** @type {Record<Events, import('./runs.mjs').RunResult[]>} */
  const runs = { on: [], off: [] };
  for (let turn = 1; turn <= settings.pairs; turn++) {
    for (const events of /** @type {const} */ (turn % 2 ? ['on', 'off'] : ['off', 'on'])) {
      await sleep(250);
      const run = await load(events, settings.duration);
      ensureAlive(services[events], `service with events ${events}`);
      runs[events].push(run);
      progress(`events ${events} ${turn}/${settings.pairs}`, run);
    }
  }
  await sleep(1500);
  const after = { on: await eventsWritten(services.on.baseUrl), off: await eventsWritten(services.off.baseUrl) };
  /** @param {Events} events */
  const figures = (events) => {
    const calls = runs[events].reduce((n, run) => n + run.ok + run.non2xx, 0);
    return {
      ...combine(runs[events]),
      calls,
      eventsWritten: after[events].written - before[events].written,
      eventsLost: after[events].lost - before[events].lost,
    };
  };
  const on = figures('on');
  const off = figures('off');
  for (const service of [services.on, services.off]) {
    const exit = await service.stop();
    if (exit.code !== 0) console.warn(`bench: a sign-in mix service exited with ${exit.code ?? exit.signal}:\n${service.stderr()}`);
    await service.cleanup();
    cleanups.splice(cleanups.indexOf(service.stop), 1);
    cleanups.splice(cleanups.indexOf(service.cleanup), 1);
  }
  return {
    case: SIGNIN_MIX.name,
    mix: SIGNIN_MIX.cycle,
    on,
    off,
    /** The median over the rounds of the throughput with events on against that with them off in the same round. */
    throughputOnOff: round(median(runs.on.map((run, i) => run.rps / (runs.off[i]?.rps || NaN))), 3),
  };
}

/** @param {'sqlite' | 'postgresql'} store @param {Awaited<ReturnType<typeof measureEventsCost>>} r */
export function eventsCostRow(store, r) {
  const cpu = (/** @type {number | null} */ micros) => micros ?? '–';
  return `| ${store} | ${Math.round(r.off.rps)} → ${Math.round(r.on.rps)} (${(r.throughputOnOff * 100).toFixed(0)}%) | ${cpu(r.off.cpuMicrosPerCall)} → ${cpu(r.on.cpuMicrosPerCall)} | ${ms(r.off.p50)} → ${ms(r.on.p50)} | ${ms(r.off.p99)} → ${ms(r.on.p99)} | ${r.off.eventsWritten} / ${r.on.eventsWritten} of ${r.on.calls} calls${r.on.eventsLost ? `, ${r.on.eventsLost} lost` : ''} | ${r.off.errors + r.on.errors} |`;
}

export const EVENTS_COST_HEADER = [
  '| store | req/s, events off → on (on/off, median of the rounds) | CPU µs/call, off → on | p50 ms, off → on | p99 ms, off → on | events written, off / on | errors |',
  '|---|--:|--:|--:|--:|--:|--:|',
];
