/** The one rule every protocol's edge refuses text by: no U+0000, no unpaired surrogate, anything else. */
import { holdsValidText, isValidText } from '../../src/service/valid-text.js';

it('takes any text without a NUL or an unpaired surrogate: accents, emoji (a surrogate pair), the replacement character', () => {
  for (const text of ['', 'ada', 'Zoë Ångström', '\u{1F600} smile', '\uFFFD', 'tab\tand\nline']) expect(isValidText(text)).toBe(true);
});

it('refuses U+0000 and every unpaired surrogate: high alone, low alone, a pair in the wrong order', () => {
  for (const text of ['\u0000', 'ada\u0000', '\ud800', 'x\ud83dy', '\udc00', 'x\ude00', '\ude00\ud83d']) expect(isValidText(text)).toBe(false);
});

it('checks every string of a parsed value, keys included', () => {
  expect(holdsValidText({ a: ['b', { c: 'd' }], n: 1, t: true, z: null })).toBe(true);
  expect(holdsValidText(undefined)).toBe(true);
  expect(holdsValidText({ a: ['b', { c: 'd\u0000' }] })).toBe(false);
  expect(holdsValidText({ ['k\ud800']: 'v' })).toBe(false);
  expect(holdsValidText(['\udfff'])).toBe(false);
});
