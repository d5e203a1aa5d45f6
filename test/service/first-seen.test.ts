import { FirstSeen } from '../../src/service/first-seen.js';

describe('FirstSeen', () => {
  it('answers as a Map of first lines would, across its growth, for 100,000 values with repeats', () => {
    const seen = new FirstSeen();
    const reference = new Map<string, number>();
    let state = 42;
    const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
    for (let line = 2; line < 100_002; line++) {
      // About one value in five repeats an earlier one; some share a prefix, some are long.
      const value = random() % 5 === 0 ? `m${random() % line}` : `${random().toString(36)}-${'x'.repeat(random() % 40)}`;
      const expected = reference.get(value);
      if (expected === undefined) reference.set(value, line);
      expect(seen.firstLine(value, line)).toBe(expected);
    }
    expect(seen.size).toBe(reference.size);
  });

  it('keeps text exact: case, non-ASCII letters, emoji', () => {
    const seen = new FirstSeen();
    const values = ['Ada', 'ada', 'zoë', 'zoe\u0308', '日本', '🎓', '\ufffd', 'a\u0000b', 'a'];
    values.forEach((value, index) => expect(seen.firstLine(value, index + 2)).toBeUndefined());
    values.forEach((value, index) => expect(seen.firstLine(value, 99)).toBe(index + 2));
  });

  it('takes unpaired surrogates as UTF-8 stores them: as U+FFFD', () => {
    const seen = new FirstSeen();
    expect(seen.firstLine('a\ud83c', 2)).toBeUndefined();
    expect(seen.firstLine('a\udf93', 3)).toBe(2);
    expect(seen.firstLine('a\ufffd', 4)).toBe(2);
    expect(seen.firstLine('a\ud83c\udf93', 5)).toBeUndefined();
  });
});
