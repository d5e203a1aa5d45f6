/** startIndex and count (src/provisioning/paging.ts, RFC 7644 §3.4.2.4). */
import { MAX_RESULTS, pageOf } from '../../src/provisioning/paging.js';
import { refused, refusalOf } from './refusal.js';

test.each([
  ['neither: the first page, as many as the service gives', {}, { startIndex: 1, offset: 0, limit: MAX_RESULTS }],
  // Okta tests a connection with GET /Users?startIndex=1&count=2.
  ["Okta's connection test", { startIndex: '1', count: '2' }, { startIndex: 1, offset: 0, limit: 2 }],
  ['a later page', { startIndex: '101', count: '50' }, { startIndex: 101, offset: 100, limit: 50 }],
  ['a startIndex below 1 means 1', { startIndex: '-5' }, { startIndex: 1, offset: 0, limit: MAX_RESULTS }],
  ['a startIndex of 0 means 1', { startIndex: '0' }, { startIndex: 1, offset: 0, limit: MAX_RESULTS }],
  ['a negative count means 0 (only the total)', { count: '-1' }, { startIndex: 1, offset: 0, limit: 0 }],
  ['a count over the maximum means the maximum', { count: '100000' }, { startIndex: 1, offset: 0, limit: MAX_RESULTS }],
  ['spaces and a sign around the numbers', { startIndex: ' +3 ', count: ' 7' }, { startIndex: 3, offset: 2, limit: 7 }],
])('%s', (_name, query, page) => {
  expect(pageOf(query)).toEqual(page);
});

test.each([
  ['a word', { count: 'ten' }, 'count is an integer'],
  ['a fraction', { startIndex: '1.5' }, 'startIndex is an integer'],
  ['sixteen digits', { startIndex: '1234567890123456' }, 'startIndex is an integer'],
  ['an empty value', { count: '' }, 'count is an integer'],
  ['a parameter given twice', { count: ['1', '2'] }, 'count is given once'],
])('%s: 400 invalidValue', (_name, query, detail) => {
  expect(refusalOf(() => pageOf(query))).toMatchObject(refused(400, 'invalidValue', detail));
});
