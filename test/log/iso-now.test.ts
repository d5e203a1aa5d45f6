/** isoNow is the current time in ISO 8601, also when the lines of one millisecond share its string. */
import { jest } from '@jest/globals';
import { isoNow } from '../../src/log/iso-now.js';

describe('isoNow', () => {
  afterEach(() => jest.useRealTimers());

  it('follows the clock from one millisecond to the next', () => {
    jest.useFakeTimers({ now: Date.parse('2026-03-04T05:06:07.008Z') });
    expect(isoNow()).toBe('2026-03-04T05:06:07.008Z');
    expect(isoNow()).toBe('2026-03-04T05:06:07.008Z');
    jest.setSystemTime(Date.parse('2026-03-04T05:06:07.009Z'));
    expect(isoNow()).toBe('2026-03-04T05:06:07.009Z');
    jest.setSystemTime(Date.parse('2027-01-01T00:00:00.000Z'));
    expect(isoNow()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('is the real time', () => {
    const before = Date.now();
    const now = Date.parse(isoNow());
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
