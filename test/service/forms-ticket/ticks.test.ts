/**
 * .NET ticks and JavaScript Dates (src/service/forms-ticket/ticks.ts): 100 ns since 0001-01-01 UTC.
 */
import { dateFromTicks, MAX_TICKS, ticksFromDate, ticksInRange } from '../../../src/service/forms-ticket/ticks.js';
import { fc } from '../../helpers/seeded-fast-check.js';

it('puts the Unix epoch at DateTime(1970, 1, 1).Ticks', () => {
  expect(ticksFromDate(new Date(0))).toBe(621_355_968_000_000_000n);
  expect(dateFromTicks(621_355_968_000_000_000n).toISOString()).toBe('1970-01-01T00:00:00.000Z');
});

it('reads the ticks of a .NET vector to the millisecond, dropping the 100 ns below it', () => {
  // (636971592103633638 - 621355968000000000) / 10000 = 1561562410363.3638 ms
  expect(dateFromTicks(636_971_592_103_633_638n).toISOString()).toBe('2019-06-26T15:20:10.363Z');
});

it('rounds toward the past before 1970 too', () => {
  expect(dateFromTicks(621_355_967_999_999_999n).toISOString()).toBe('1969-12-31T23:59:59.999Z');
  expect(dateFromTicks(0n).toISOString()).toBe('0001-01-01T00:00:00.000Z');
});

it('knows the range DateTime holds', () => {
  expect([ticksInRange(-1n), ticksInRange(0n), ticksInRange(MAX_TICKS), ticksInRange(MAX_TICKS + 1n)]).toEqual([false, true, true, false]);
  expect(dateFromTicks(MAX_TICKS).toISOString()).toBe('9999-12-31T23:59:59.999Z');
});

it('takes any Date of years 1 to 9999 to ticks and back', () => {
  const dates = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });
  fc.assert(fc.property(dates, (date) => expect(dateFromTicks(ticksFromDate(date))).toEqual(date)));
});
