#!/usr/bin/env node
// @ts-check
/**
 * Seeds the at-scale benchmarks' store through the services' bulk paths (MemberService.addMany,
 * SessionService.createMany: one transaction per batch) and the events through the store's (Store.insertEvents),
 * not one admin command per row. Run as a child process of scripts/bench/scale.mjs and event-history.mjs with the
 * service's settings in its environment (DATA_DIR or DATABASE_URL, SECRET_KEY) and what to seed in BENCH_SEED
 * (JSON, see SeedRequest); prints one JSON line with the figures. Seeding in steps (members and the first
 * sessions, then more sessions) continues where the last step ended. BENCH_SEED_ROOT names another checkout whose
 * services seed (BENCH_BEFORE's), this one's by default.
 */
import { URI } from 'otpauth';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../../dist/config/config.js';
import { eventId } from '../../dist/service/event-ids.js';
import { openStore } from '../../dist/store/open.js';
import { cookieAt, eventAt, memberAt, memberIndexOf, tokenAt } from './data-set.mjs';

/**
 * @typedef {object} SeedRequest
 * @property {import('./data-set.mjs').DataSet} dataSet
 * @property {[number, number]} members the member indexes to add, from (inclusive) to (exclusive)
 * @property {[number, number]} sessions the session indexes to add
 * @property {{ name: string, password: string } | null} caller the calling application to add, if any
 * @property {{ count: number, end: number }} [events] events to add (eventAt of data-set.mjs), up to `end` (epoch ms)
 * @property {StaffSeed} [staff] a member to make staff, signed in with a second factor
 *
 * @typedef {object} StaffSeed
 * @property {number} memberIndex
 * @property {string} cookieDomain the host the console is asked on
 * @property {string} cookie the login cookie of the staff member's session
 * @property {string} token
 */

/** The checkout whose services seed (BENCH_SEED_ROOT: an earlier one, for BENCH_BEFORE), this one's by default. */
const root = process.env.BENCH_SEED_ROOT || new URL('../../', import.meta.url).pathname;
/** @type {typeof import('../../dist/cli/context.js')} */
const { createCliContext } = await import(pathToFileURL(join(root, 'dist', 'cli', 'context.js')).href);

const BATCH = 1000;
/** Events per transaction: Store.insertEvents splits them into as many statements as the driver takes. */
const EVENT_BATCH = 5000;

/** @type {SeedRequest} */
const request = JSON.parse(process.env.BENCH_SEED ?? 'null');
const { dataSet } = request;
const startedAt = performance.now();

await createCliContext(process.env).withServices(async (services) => {
  if (request.caller) await services.callers.add(request.caller.name, request.caller.password);
  for (let from = request.members[0]; from < request.members[1]; from += BATCH) {
    const batch = [];
    for (let i = from; i < Math.min(from + BATCH, request.members[1]); i++) batch.push(services.members.prepare(memberAt(i)));
    const outcomes = await services.members.addMany(batch);
    const refused = outcomes.findIndex((outcome) => outcome !== 'created');
    if (refused !== -1) throw new Error(`member ${from + refused} was not created: ${outcomes[refused]}`);
  }
  for (let from = request.sessions[0]; from < request.sessions[1]; from += BATCH) {
    const batch = [];
    for (let j = from; j < Math.min(from + BATCH, request.sessions[1]); j++) {
      batch.push({ memberId: memberAt(memberIndexOf(dataSet, j)).id, cookieDomain: dataSet.domain, cookie: cookieAt(dataSet, j), token: tokenAt(dataSet, j) });
    }
    await services.sessions.createMany(batch);
  }
  if (request.staff) {
    const { memberIndex, cookieDomain, cookie, token } = request.staff;
    const staffId = memberAt(memberIndex).id;
    await services.staff.grant(staffId, 'support');
    const setup = await services.secondFactor.beginSetup(staffId, 'staff');
    if (!(await services.secondFactor.confirmSetup(staffId, URI.parse(setup.uri).generate()))) throw new Error("the staff member's second factor was not confirmed");
    // Opened after the factor was confirmed: the console takes it as a sign-in with a second factor.
    await services.sessions.createMany([{ memberId: staffId, cookieDomain, cookie, token }]);
  }
});

if (request.events) {
  const { count, end } = request.events;
  const config = loadConfig(process.env);
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    for (let from = 0; from < count; from += EVENT_BATCH) {
      const batch = [];
      for (let k = from; k < Math.min(from + EVENT_BATCH, count); k++) batch.push(eventAt(dataSet, k, count, end, eventId));
      await store.insertEvents(batch);
    }
  } finally {
    await store.close();
  }
}

console.log(
  JSON.stringify({
    members: request.members[1] - request.members[0],
    sessions: request.sessions[1] - request.sessions[0],
    events: request.events?.count ?? 0,
    seconds: (performance.now() - startedAt) / 1000,
  }),
);
