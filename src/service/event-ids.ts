import { randomBytes } from 'node:crypto';

let counter = 0;

/**
 * An event's id: its time (12 hex digits of epoch milliseconds), a counter of this process (8 hex digits), then
 * random (12 hex digits) so that instances sharing a store never make the same one. Events of one time sort by id
 * in the order this instance recorded them: a failed sign-in and the success after it list in that order.
 */
export function eventId(time: number): string {
  counter = (counter + 1) % 0x1_0000_0000;
  return `${Math.max(0, Math.trunc(time)).toString(16).padStart(12, '0')}${counter.toString(16).padStart(8, '0')}${randomBytes(6).toString('hex')}`;
}
