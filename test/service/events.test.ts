/**
 * The events' service: recording costs the request no store round trip (the writer batches, as the last-seen
 * writer does), a batch the store refuses is lost and told (never thrown at the request), the queue is bounded,
 * and the list and export read what was recorded.
 */
import { jest } from '@jest/globals';
import { createLogger } from '../../src/log/logger.js';
import { watchEventWrites } from '../../src/ops/event-writes.js';
import { EVENT_BATCH, EVENT_FLUSH_MS, EVENT_QUEUE_LIMIT, EventWriter } from '../../src/service/event-writer.js';
import { EventService } from '../../src/service/events.js';
import type { Store } from '../../src/store/store.js';
import { useFakeTimers } from '../helpers/fake-timers.js';
import { logCapture } from '../helpers/log-capture.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { nextTurn } from '../helpers/wait.js';

const START = Date.UTC(2026, 0, 1);
let now = START;
const clock = () => now;

let store: Store;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  now = START;
  ({ store, cleanup } = await tempSqliteStore());
});

afterEach(async () => {
  jest.useRealTimers();
  await cleanup();
});

function outcomesSpy() {
  const told = { written: 0, lost: [] as Array<[number, string]> };
  return {
    told,
    outcomes: {
      written: (count: number) => void (told.written += count),
      lost: (count: number, cause: { error: unknown } | 'queue-full') => void told.lost.push([count, cause === 'queue-full' ? cause : String((cause.error as Error).message)]),
    },
  };
}

describe('recording', () => {
  it('costs no store call: the events are written together after EVENT_FLUSH_MS', async () => {
    useFakeTimers();
    const insert = jest.spyOn(store, 'insertEvents');
    const events = new EventService(store, clock, new EventWriter(store), true);
    events.record({ type: 'signin-failed', reason: 'unknown-login', clientAddress: '192.0.2.1' });
    events.record({ type: 'signin-succeeded', memberId: 'm1' });
    expect(insert).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(EVENT_FLUSH_MS - 1);
    expect(insert).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(insert).toHaveBeenCalledTimes(1);
    expect(insert.mock.calls[0]?.[0]).toHaveLength(2);
  });

  it('writes at once when a full batch is waiting', async () => {
    const insert = jest.spyOn(store, 'insertEvents');
    const events = new EventService(store, clock, new EventWriter(store), true);
    for (let i = 0; i < EVENT_BATCH; i++) events.record({ type: 'signin-succeeded', memberId: `m${i}` });
    await nextTurn();
    expect(insert).toHaveBeenCalledTimes(1);
    expect(insert.mock.calls[0]?.[0]).toHaveLength(EVENT_BATCH);
  });

  it('lists newest first, in the order recorded at one time, each with its actor (the member by default, anonymous without one)', async () => {
    const events = new EventService(store, clock, new EventWriter(store), true);
    events.record({ type: 'signin-failed', reason: 'unknown-login', clientAddress: '192.0.2.1', device: 'x'.repeat(1000) });
    events.record({ type: 'signin-failed', memberId: 'm1', reason: 'wrong-password' });
    events.record({ type: 'member-disabled', memberId: 'm1', actor: { kind: 'staff', id: 's1' } });
    now += 1;
    events.record({ type: 'signin-succeeded', memberId: 'm1' });
    const listed = await events.list();
    expect(listed.map((event) => [event.type, event.actor, event.reason])).toEqual([
      ['signin-succeeded', { kind: 'member', id: 'm1' }, null],
      ['member-disabled', { kind: 'staff', id: 's1' }, null],
      ['signin-failed', { kind: 'member', id: 'm1' }, 'wrong-password'],
      ['signin-failed', { kind: 'anonymous' }, 'unknown-login'],
    ]);
    expect(listed[3]).toMatchObject({ time: START, memberId: null, clientAddress: '192.0.2.1', via: null });
    expect(listed[3]?.device).toHaveLength(200);
    expect((await events.list({ memberId: 'm1', type: 'signin-failed' })).map((event) => event.reason)).toEqual(['wrong-password']);
    expect(await events.list({ since: START + 1, limit: 1 })).toHaveLength(1);
  });

  it('exports every event from a time on, oldest first, across pages', async () => {
    const events = new EventService(store, clock, new EventWriter(store), true);
    for (let i = 0; i < 2500; i++) {
      now = START + i;
      events.record({ type: 'signin-succeeded', memberId: 'm1' });
    }
    const times: number[] = [];
    for await (const event of events.export(START + 500)) times.push(event.time);
    expect(times).toHaveLength(2000);
    expect(times[0]).toBe(START + 500);
    expect(times.every((time, index) => index === 0 || time > (times[index - 1] as number))).toBe(true);
  });
});

describe('a store that cannot take the events', () => {
  it('loses the batch without throwing, tells why, and writes the next batch once it can', async () => {
    const { told, outcomes } = outcomesSpy();
    const insert = jest.spyOn(store, 'insertEvents').mockRejectedValueOnce(new Error('database is locked'));
    const events = new EventService(store, clock, new EventWriter(store, outcomes), true);
    events.record({ type: 'signin-succeeded', memberId: 'm1' });
    events.record({ type: 'signed-out', memberId: 'm1' });
    await expect(events.flush()).resolves.toBeUndefined();
    expect(told).toEqual({ written: 0, lost: [[2, 'database is locked']] });
    events.record({ type: 'signin-succeeded', memberId: 'm2' });
    await events.flush();
    expect(told).toEqual({ written: 1, lost: [[2, 'database is locked']] });
    expect(insert).toHaveBeenCalledTimes(2);
    expect((await events.list()).map((event) => event.memberId)).toEqual(['m2']);
  });

  it('holds at most EVENT_QUEUE_LIMIT while the store does not answer; the rest are lost and counted', async () => {
    const { told, outcomes } = outcomesSpy();
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const hanging: Pick<Store, 'insertEvents'> = { insertEvents: () => answered };
    const events = new EventService(store, clock, new EventWriter(hanging, outcomes), true);
    for (let i = 0; i < EVENT_QUEUE_LIMIT + 3; i++) events.record({ type: 'signin-succeeded', memberId: 'm1' });
    expect(told.lost).toEqual([
      [1, 'queue-full'],
      [1, 'queue-full'],
      [1, 'queue-full'],
    ]);
    answer();
    await events.flush();
    expect(told.written).toBe(EVENT_QUEUE_LIMIT);
    // Room again once the store answered.
    events.record({ type: 'signin-succeeded', memberId: 'm1' });
    await events.flush();
    expect(told).toMatchObject({ written: EVENT_QUEUE_LIMIT + 1 });
  });
});

describe('the loss watcher (compose wires it to the writer)', () => {
  it('logs the first lost batch of a burst at error, counts every one, and logs once when the events are written again', async () => {
    const { lines, stream } = logCapture();
    const counted: Array<[string, number]> = [];
    const watcher = watchEventWrites({
      logger: createLogger('debug', stream),
      metrics: { eventsWritten: (count) => counted.push(['written', count]), eventsLost: (cause, count) => counted.push([cause, count]) },
    });
    const failing: Pick<Store, 'insertEvents'> = { insertEvents: () => Promise.reject(new Error('SQLITE_FULL: database or disk is full')) };
    const events = new EventService(store, clock, new EventWriter(failing, watcher), true);
    for (let batch = 0; batch < 3; batch++) {
      events.record({ type: 'signin-failed', reason: 'wrong-password', memberId: 'm1' });
      await events.flush();
    }
    watcher.written(5);
    watcher.lost(1, 'queue-full');
    await nextTurn();
    expect(counted).toEqual([
      ['store', 1],
      ['store', 1],
      ['store', 1],
      ['written', 5],
      ['queue_full', 1],
    ]);
    expect(lines.map((line) => [line.level, line.message, line.events ?? line.lost, line.error ?? null])).toEqual([
      ['warn', 'events not written', 1, 'SQLITE_FULL: database or disk is full'],
      ['info', 'events written again', 3, null],
      ['warn', 'events not written', 1, 'too many events waiting for the store'],
    ]);
  });
});
