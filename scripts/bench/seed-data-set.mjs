#!/usr/bin/env node
// @ts-check
/**
 * Seeds the at-scale benchmark's store through the services' bulk paths (MemberService.addMany,
 * SessionService.createMany: one transaction per batch), not one admin command per row. Run as a child process
 * of scripts/bench/scale.mjs with the service's settings in its environment (DATA_DIR or DATABASE_URL,
 * SECRET_KEY) and what to seed in BENCH_SEED (JSON, see SeedRequest); prints one JSON line with the figures.
 * Seeding in steps (members and the first sessions, then more sessions) continues where the last step ended.
 */
import { createCliContext } from '../../dist/cli/context.js';
import { cookieAt, memberAt, memberIndexOf, tokenAt } from './data-set.mjs';

/**
 * @typedef {object} SeedRequest
 * @property {import('./data-set.mjs').DataSet} dataSet
 * @property {[number, number]} members the member indexes to add, from (inclusive) to (exclusive)
 * @property {[number, number]} sessions the session indexes to add
 * @property {{ name: string, password: string } | null} caller the calling application to add, if any
 */

const BATCH = 1000;

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
});

console.log(
  JSON.stringify({
    members: request.members[1] - request.members[0],
    sessions: request.sessions[1] - request.sessions[0],
    seconds: (performance.now() - startedAt) / 1000,
  }),
);
