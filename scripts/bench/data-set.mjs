// @ts-check
/**
 * The at-scale benchmark's data set, defined by a few numbers so that the seeder, the load generator and the
 * reference server all know every member and session without a list of them: member i and session j are
 * functions of i and j. Session j belongs to member j mod the member count; its token and login cookie are a
 * per-run random prefix and j in eleven digits (43 characters, as the service's own tokens), so an index past
 * the last session makes a token nobody holds.
 */
import { randomBytes } from 'node:crypto';

/**
 * @typedef {object} DataSet
 * @property {number} members
 * @property {number} sessions
 * @property {string} tokenPrefix 32 base64url characters
 * @property {string} cookiePrefix 32 base64url characters
 * @property {string} domain the cookie domain every session was issued for, as partners send it
 */

/** @typedef {{ id: string, username: string, email: string, firstName: string, lastName: string }} DataSetMember */

const INDEX_DIGITS = 11;
const PREFIX_LENGTH = 32;
/** Member ids start here, so that every id has the same number of digits up to 1,000,000,000 members. */
const FIRST_MEMBER_ID = 1_000_000_000;

/** @param {number} members @param {number} sessions @returns {DataSet} */
export function createDataSet(members, sessions) {
  const prefix = () => randomBytes(24).toString('base64url').slice(0, PREFIX_LENGTH);
  return { members, sessions, tokenPrefix: prefix(), cookiePrefix: prefix(), domain: '.example.org' };
}

/** @param {number} index @returns {DataSetMember} */
export function memberAt(index) {
  return {
    id: String(FIRST_MEMBER_ID + index),
    username: `member${index}`,
    email: `member${index}@example.org`,
    firstName: 'Member',
    lastName: `Number ${index}`,
  };
}

/** @param {number} index */
const digits = (index) => String(index).padStart(INDEX_DIGITS, '0');

/** @param {DataSet} dataSet @param {number} index */
export const tokenAt = (dataSet, index) => dataSet.tokenPrefix + digits(index);
/** @param {DataSet} dataSet @param {number} index */
export const cookieAt = (dataSet, index) => dataSet.cookiePrefix + digits(index);
/** @param {DataSet} dataSet @param {number} sessionIndex */
export const memberIndexOf = (dataSet, sessionIndex) => sessionIndex % dataSet.members;

/**
 * The index of the session this token or cookie would be, or -1 when it is none of the data set's.
 * @param {string} prefix @param {number} sessions @param {string | undefined} value
 */
export function sessionIndexOf(prefix, sessions, value) {
  if (value === undefined || value.length !== PREFIX_LENGTH + INDEX_DIGITS || !value.startsWith(prefix)) return -1;
  const index = Number(value.slice(PREFIX_LENGTH));
  return Number.isInteger(index) && index < sessions ? index : -1;
}

/**
 * @typedef {object} TrafficMix
 * @property {'uniform' | 'zipf' | 'hot'} distribution how the session of a call is picked among the live ones
 * @property {number} unknownShare the share of calls with a token or cookie nobody holds
 * @property {number} wrongPasswordShare the share of calls with a wrong security password
 */

/** The sessions the hot distribution picks among: few enough that the cache holds them all. */
export const HOT_SESSIONS = 100;

/**
 * A picker of the next call's values. Uniform: every session alike. Zipf: session ranks follow a Zipf law with
 * exponent 1, drawn as floor((n + 1)^u) − 1 for u uniform in [0, 1), the continuous approximation (the first session
 * gets about 5% of the calls out of 1,000,000, the first 10,000 about two thirds). Hot: the first HOT_SESSIONS alike.
 * @param {DataSet} dataSet
 * @param {TrafficMix} mix
 * @param {{ password: string, wrongPassword: string }} passwords
 * @returns {() => { password: string, token: string, cookie: string, domain: string }}
 */
export function trafficOf(dataSet, mix, passwords) {
  const n = dataSet.sessions;
  const among = mix.distribution === 'hot' ? Math.min(n, HOT_SESSIONS) : n;
  const pick = mix.distribution === 'zipf' ? () => Math.floor(Math.pow(n + 1, Math.random())) - 1 : () => Math.floor(Math.random() * among);
  return () => {
    const index = Math.random() < mix.unknownShare ? n + Math.floor(Math.random() * n) : pick();
    return {
      password: Math.random() < mix.wrongPasswordShare ? passwords.wrongPassword : passwords.password,
      token: tokenAt(dataSet, index),
      cookie: cookieAt(dataSet, index),
      domain: dataSet.domain,
    };
  };
}

/** The events of the history bench span this long, up to its `end`: EVENTS_RETENTION_DAYS' default. */
const EVENT_SPAN_MS = 90 * 86_400_000;
/** What a member's history holds, in turn: mostly sign-ins, some refused, some sign-outs. */
const EVENT_KINDS = /** @type {const} */ ([
  ['signin-succeeded', 'password', null],
  ['signin-succeeded', 'AuthenticateUser', null],
  ['signin-failed', 'refused', 'wrong-password'],
  ['signin-succeeded', 'password', null],
  ['signed-out', 'page', null],
  ['signin-succeeded', 'AuthenticateUser', null],
  ['signin-failed', 'refused', 'wrong-code'],
]);

/**
 * Event k of `count`, as the store keeps it: member k mod the member count's, the events evenly spread over the
 * EVENT_SPAN_MS before `end`, oldest first, so that one member's are spread over the whole span.
 * @param {DataSet} dataSet @param {number} index @param {number} count @param {number} end epoch ms
 * @param {(time: number) => string} idOf the service's event id for a time
 */
export function eventAt(dataSet, index, count, end, idOf) {
  const time = Math.round(end - EVENT_SPAN_MS + (index * EVENT_SPAN_MS) / count);
  // The member's n-th event is of the n-th kind, whatever the member count.
  const [type, outcome, reason] = EVENT_KINDS[Math.floor(index / dataSet.members) % EVENT_KINDS.length] ?? EVENT_KINDS[0];
  const memberId = memberAt(index % dataSet.members).id;
  return {
    id: idOf(time),
    time,
    type,
    actorKind: 'member',
    actorId: memberId,
    memberId,
    clientAddress: `198.51.100.${index % 250}`,
    device: 'Firefox on Windows',
    via: outcome === 'AuthenticateUser' ? 'shop' : null,
    requestId: `req-${index}`,
    outcome,
    reason,
  };
}
