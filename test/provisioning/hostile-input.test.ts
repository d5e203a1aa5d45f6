/**
 * Hostile filters and PATCH documents within the limits (a filter fills the request head, 16 KB; a PATCH body the
 * body limit, 64 KB): deep nesting, unclosed strings of backslashes, the longest and-chains, the most operations,
 * value filters over the most values, path-less values of thousands of keys. Each must be answered (a result or
 * a SCIM refusal, never a crash) for little CPU: its cost is set against a benign input of the same size, an
 * ordinary PATCH or filter, measured the same way in the same loop, so that the machine's load weighs on both
 * alike. Work that grows faster than the input (backtracking, quadratic scans) costs hundreds of times the benign
 * input at this size; linear work costs a few times it.
 */
import { ScimError } from '../../src/provisioning/errors.js';
import { parseFilter } from '../../src/provisioning/filter-syntax.js';
import { draftOf, fieldsOf } from '../../src/provisioning/member-draft.js';
import { memberQueryOf } from '../../src/provisioning/member-query.js';
import { applyOperations, patchOperations } from '../../src/provisioning/patch.js';
import type { ProvisionedMember } from '../../src/provisioning/port.js';
import { parseJsonBody } from '../../src/provisioning/request-body.js';
import { MEMBER_EXTENSION } from '../../src/provisioning/urns.js';
import { fc } from '../helpers/seeded-fast-check.js';
import { ADA } from './members.js';

const MAX_BODY_BYTES = 64 * 1024;
/** Node's limit on a request head, which bounds a query string and so a filter. */
const MAX_HEAD_BYTES = 16 * 1024;
/** How many times the benign input's cost a hostile one may take. */
const RATIO = 20;
/** Below this, a cost is noise (a timer tick, a minor garbage collection) and passes whatever the ratio. */
const FLOOR_MS = 3;
const SAMPLES = 5;

/** A member with the most roles and extras the service keeps, for filters to run over. */
const MEMBER: ProvisionedMember = {
  ...ADA,
  attributes: {
    roles: Array.from({ length: 100 }, (_, i) => ({ id: `role-${i}`, name: `Role ${i}` })),
    extra: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key${i}`, 'value'])),
  },
};

/** What the router does with a PATCH body: parse, check, apply; a SCIM refusal is an answer too. */
function readPatch(text: string): unknown {
  try {
    const operations = patchOperations(parseJsonBody(text));
    const draft = draftOf(MEMBER);
    applyOperations(draft, operations);
    return fieldsOf(draft);
  } catch (error) {
    if (error instanceof ScimError && error.status < 500) return error;
    throw error;
  }
}

/** What the router does with a filter. */
function readFilter(text: string): unknown {
  try {
    return memberQueryOf(parseFilter(text), {});
  } catch (error) {
    if (error instanceof ScimError && error.status === 400) return error;
    throw error;
  }
}

/** The CPU time this process spent in the call, in milliseconds. */
function cpuMs(call: () => unknown): number {
  const start = process.cpuUsage();
  call();
  const spent = process.cpuUsage(start);
  return (spent.user + spent.system) / 1000;
}

/**
 * The cheapest of SAMPLES runs of each input, run alternately after one run each to compile the code they take;
 * a run can also pay for a garbage collection or a compilation that another left, which the cheapest escapes.
 */
function costs(hostile: () => unknown, benign: () => unknown): { hostileMs: number; benignMs: number } {
  hostile();
  benign();
  let [hostileMs, benignMs] = [Infinity, Infinity];
  for (let i = 0; i < SAMPLES; i++) {
    hostileMs = Math.min(hostileMs, cpuMs(hostile));
    benignMs = Math.min(benignMs, cpuMs(benign));
  }
  return { hostileMs, benignMs };
}

function expectWithinBudget({ hostileMs, benignMs }: { hostileMs: number; benignMs: number }): void {
  expect(hostileMs).toBeLessThan(Math.max(RATIO * benignMs, FLOOR_MS));
}

const document = (operations: unknown[]) => JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: operations });

/** As many operations `make(i)` as fit the body limit. */
function filled(make: (i: number) => unknown, bytes = MAX_BODY_BYTES): string {
  const operations: unknown[] = [];
  for (let i = 0; ; i++) {
    const next = [...operations, make(i)];
    if (document(next).length > bytes) return document(operations);
    operations.push(make(i));
    if (operations.length > 5000) return document(operations);
  }
}

/** An ordinary PATCH of the same size: Entra ID's attribute replacements, with values long enough to fill it. */
function benignPatch(bytes: number): string {
  const count = 100;
  const room = Math.max(0, Math.floor(bytes / count) - 80);
  return document(Array.from({ length: count }, (_, i) => ({ op: 'Replace', path: i % 2 ? 'displayName' : 'name.givenName', value: 'x'.repeat(room) })));
}

/** The largest `build(n)` that fits `bytes`. */
function largest(build: (n: number) => string, bytes = MAX_BODY_BYTES): string {
  let [fits, tooMany] = [0, 1];
  while (build(tooMany).length <= bytes) [fits, tooMany] = [tooMany, tooMany * 2];
  while (tooMany - fits > 1) {
    const middle = Math.floor((fits + tooMany) / 2);
    if (build(middle).length <= bytes) fits = middle;
    else tooMany = middle;
  }
  return build(fits);
}

/** A JSON string's text, its characters written as \u escapes where the bits of `variant` say: one value, many spellings. */
function spelled(text: string, variant: number): string {
  return [...text].map((char, i) => ((variant >> i) & 1 ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}` : char)).join('');
}

const longDisplay = 'd'.repeat(150);
const sameTerms = (term: string, count: number) => Array.from({ length: count }, () => term).join(' and ');

const PATCHES: Record<string, string> = {
  'the most operations, each a long value filter over the roles': filled(() => ({ op: 'replace', path: `roles[${sameTerms('value eq "role-1"', 32)}].display`, value: 'x' })),
  'filters whose every term matches every value': filled((i) =>
    i === 0
      ? { op: 'replace', path: 'roles', value: Array.from({ length: 200 }, () => ({ value: 'r', display: longDisplay })) }
      : { op: 'replace', path: `roles[${sameTerms(`display eq "${longDisplay}"`, 6)}].display`, value: longDisplay },
  ),
  'a path-less value of thousands of filtered keys, each matching a role': largest((n) =>
    document([{ op: 'replace', value: Object.fromEntries(Array.from({ length: n }, (_, i) => [`roles[value eq "${spelled(`role-${i % 100}`, Math.floor(i / 100))}"].display`, `R${i}`])) }]),
  ),
  'a path-less value of keys that are filters matching nothing': largest((n) => document([{ op: 'replace', value: Object.fromEntries(Array.from({ length: n }, (_, i) => [`emails[type eq "t${i}"].value`, 'x'])) }])),
  'unclosed strings of backslashes in paths': filled(() => ({ op: 'remove', path: `roles[value eq "${'\\\\'.repeat(500)}` })),
  'nesting to the limit in paths': filled(() => ({ op: 'remove', path: `roles[${'('.repeat(7)}value eq "a"${')'.repeat(7)}]` })),
  'nesting past the limit in paths': filled(() => ({ op: 'remove', path: `roles[${'('.repeat(500)}` })),
  'a body of brackets': `{"Operations":${'['.repeat(MAX_BODY_BYTES / 2 - 20)}${']'.repeat(MAX_BODY_BYTES / 2 - 20)}}`,
  'operations past the limit': filled(() => ({ op: 'replace', path: 'active', value: true })),
  'a list to remove of thousands of values': largest((n) => document([{ op: 'remove', path: 'roles', value: Array.from({ length: n }, (_, i) => ({ value: `role-${i}` })) }])),
  'roles added past the limit': document([{ op: 'add', path: 'roles', value: Array.from({ length: 3000 }, (_, i) => ({ value: `n${i}` })) }]),
  'extras set past the limit': document([{ op: 'add', path: MEMBER_EXTENSION, value: { extra: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, 'v'])) } }]),
  'operations of thousands of members each': document(Array.from({ length: 4 }, () => ({ op: 'replace', path: 'active', value: true, ...Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`x${i}`, 1])) }))),
  'the longest dotted paths': filled(() => ({ op: 'replace', path: `name.${'a.'.repeat(500)}`, value: 'x' })),
  'the longest URN paths': filled(() => ({ op: 'replace', path: `urn:${'x:'.repeat(500)}`, value: 'x' })),
  'one value of the whole body': document([{ op: 'replace', path: 'displayName', value: 'x'.repeat(MAX_BODY_BYTES - 200) }]),
};

test.each(Object.keys(PATCHES))('PATCH, %s: answered within the CPU budget', (name) => {
  const text = PATCHES[name] as string;
  expect(text.length).toBeLessThanOrEqual(MAX_BODY_BYTES);
  expect(text.length).toBeGreaterThan(MAX_BODY_BYTES / 2);
  const benign = benignPatch(text.length);
  expectWithinBudget(costs(() => readPatch(text), () => readPatch(benign)));
});

/** Pieces of hostile filters and paths: brackets, quotes, escapes, operators, URNs. */
const FILTER_PIECES = ['(', ')', '[', ']', '"', '\\', '\\"', ' ', 'and ', 'or ', 'not ', 'eq ', 'pr', ' eq "x"', 'emails[type eq "work"].value', 'userName', '.', '1e9', 'true', 'urn:ietf:params:scim:schemas:core:2.0:User:', 'a'];
const filterText = (maxLength: number) => fc.array(fc.constantFrom(...FILTER_PIECES), { maxLength }).map((pieces) => pieces.join(''));

const FILTERS: Record<string, string> = {
  'the deepest parentheses a head holds': '('.repeat(MAX_HEAD_BYTES),
  'parentheses to the length cap': `${'('.repeat(2000)}a eq 1${')'.repeat(2000)}`,
  'an and-chain to the length cap': Array.from({ length: 400 }, (_, i) => `a${i} eq ${i}`).join(' and ').slice(0, 4096),
  'an unclosed string of backslashes': `userName eq "${'\\\\'.repeat(2040)}`,
  'an unclosed string of escaped quotes': `userName eq "${'\\"'.repeat(2040)}`,
  'brackets in brackets': 'emails['.repeat(580),
  'one long word': 'a'.repeat(4096),
};

test.each(Object.keys(FILTERS))('filter, %s: answered within the CPU budget', (name) => {
  const text = FILTERS[name] as string;
  const benign = `userName eq "${'a'.repeat(Math.min(text.length, 4080))}"`;
  expectWithinBudget(costs(() => readFilter(text), () => readFilter(benign)));
});

test('random hostile filters, to the length cap and past it, are answered within the CPU budget', () => {
  fc.assert(
    fc.property(fc.oneof(filterText(400), filterText(4000)), (text) => {
      const benign = `userName eq "${'a'.repeat(Math.min(text.length, 4080))}"`;
      expectWithinBudget(costs(() => readFilter(text), () => readFilter(benign)));
    }),
    { numRuns: 60 },
  );
});

/** One hostile operation, drawn at random. */
const hostileOperation = fc.oneof(
  fc.record({ op: fc.constantFrom('add', 'Replace', 'remove'), path: filterText(60).map((text) => `roles[${text}]`), value: fc.constant('x') }),
  fc.record({ op: fc.constant('replace'), value: fc.dictionary(filterText(20), fc.constantFrom('x', 'False', null), { maxKeys: 50 }) }),
  fc.record({ op: fc.constantFrom('add', 'replace'), path: fc.constantFrom('roles', 'emails'), value: fc.array(fc.record({ value: fc.string({ maxLength: 8 }), display: fc.constantFrom(longDisplay, 'x'), primary: fc.constantFrom(true, 'True', 'no') }), { maxLength: 40 }) }),
  fc.record({ op: fc.constantFrom('replace', 'remove'), path: fc.constantFrom(`roles[${sameTerms(`display eq "${longDisplay}"`, 6)}].value`, 'emails[type eq "work"].value', `${MEMBER_EXTENSION}:extra.k1`, 'name.givenName'), value: fc.constantFrom('x', longDisplay) }),
);

test('random mixes of hostile operations filling the body are answered within the CPU budget, never crashing', () => {
  fc.assert(
    fc.property(fc.array(hostileOperation, { minLength: 1, maxLength: 8 }), (operations) => {
      const text = filled((i) => operations[i % operations.length]);
      const benign = benignPatch(text.length);
      expectWithinBudget(costs(() => readPatch(text), () => readPatch(benign)));
    }),
    { numRuns: 40 },
  );
});
