/** The member's version as a weak ETag, and If-Match / If-None-Match (src/provisioning/etag.ts, RFC 7644 §3.14). */
import { etagOf, ifMatchAllows, ifNoneMatchHits } from '../../src/provisioning/etag.js';

test('a version is a weak ETag', () => {
  expect(etagOf(42)).toBe('W/"42"');
});

test.each([
  [undefined, true],
  ['W/"42"', true],
  ['"42"', true],
  ['*', true],
  ['W/"41", W/"42"', true],
  ['W/"41"', false],
  ['W/"420"', false],
  ['', false],
  ['W/42', true],
])('If-Match %p on version 42 lets the change through: %p', (header, allowed) => {
  expect(ifMatchAllows(header, 42)).toBe(allowed);
});

test.each([
  [undefined, false],
  ['W/"42"', true],
  ['*', true],
  ['W/"41"', false],
])('If-None-Match %p on version 42 answers 304: %p', (header, hit) => {
  expect(ifNoneMatchHits(header, 42)).toBe(hit);
});
