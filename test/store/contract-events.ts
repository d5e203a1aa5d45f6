import type { EventRow, Store } from '../../src/store/store.js';

/** Well past 2^31, as in the rest of the contract. */
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

function anEvent(id: string, overrides: Partial<EventRow> = {}): EventRow {
  return {
    id,
    time: T0,
    type: 'signin-failed',
    actorKind: 'member',
    actorId: null,
    memberId: 'm1',
    clientAddress: '2001:db8::7',
    device: 'Firefox on Windows',
    via: null,
    requestId: `request-${id}`,
    outcome: 'refused',
    reason: 'wrong-password',
    ...overrides,
  };
}

/** The events' part of the store contract (src/service/events.ts uses it). `store` is the test's fresh store. */
export function eventStoreContract(store: () => Store): void {
  describe('events', () => {
    test('are stored exactly, every field, and listed newest first (by time, then id)', async () => {
      const full = anEvent('e2', { time: T0 + MINUTE, actorKind: 'staff', actorId: 'staff-1', via: 'Zoë "Z" \\ 日本 forum', reason: null, outcome: 'done' });
      const bare = anEvent('e1', { memberId: null, clientAddress: null, device: null, requestId: null, outcome: null, reason: null, actorKind: 'system' });
      const sameTime = anEvent('e3', { time: T0 + MINUTE });
      await store().insertEvents([bare, full]);
      await store().insertEvents([sameTime]);
      expect(await store().listEvents({ limit: 10 })).toEqual([sameTime, full, bare]);
    });

    test('an empty batch writes nothing', async () => {
      await store().insertEvents([]);
      expect(await store().listEvents({ limit: 10 })).toEqual([]);
    });

    test('a batch is written whole or not at all: one duplicate id fails it', async () => {
      await store().insertEvents([anEvent('e1')]);
      await expect(store().insertEvents([anEvent('e2'), anEvent('e1')])).rejects.toBeDefined();
      expect((await store().listEvents({ limit: 10 })).map((event) => event.id)).toEqual(['e1']);
    });

    test('a batch larger than one statement takes is written whole', async () => {
      const many = Array.from({ length: 1500 }, (_, index) => anEvent(`e${String(index).padStart(5, '0')}`, { time: T0 + index }));
      await store().insertEvents(many);
      const listed = await store().listEvents({ limit: 2000 });
      expect(listed).toHaveLength(1500);
      expect(listed[0]).toEqual(many[1499]);
    });

    test('are filtered by member, type and time (inclusive), each alone and together, and limited', async () => {
      await store().insertEvents([
        anEvent('a', { memberId: 'm1', type: 'signin-failed', time: T0 }),
        anEvent('b', { memberId: 'm2', type: 'signin-failed', time: T0 + MINUTE }),
        anEvent('c', { memberId: 'm1', type: 'signin-succeeded', time: T0 + 2 * MINUTE }),
        anEvent('d', { memberId: 'm1', type: 'signin-failed', time: T0 + 3 * MINUTE }),
        anEvent('e', { memberId: null, type: 'caller-refused', time: T0 + 4 * MINUTE }),
      ]);
      const ids = async (filter: Parameters<Store['listEvents']>[0]) => (await store().listEvents(filter)).map((event) => event.id);
      expect(await ids({ memberId: 'm1', limit: 10 })).toEqual(['d', 'c', 'a']);
      expect(await ids({ type: 'signin-failed', limit: 10 })).toEqual(['d', 'b', 'a']);
      expect(await ids({ since: T0 + MINUTE, limit: 10 })).toEqual(['e', 'd', 'c', 'b']);
      expect(await ids({ memberId: 'm1', type: 'signin-failed', since: T0 + MINUTE, limit: 10 })).toEqual(['d']);
      expect(await ids({ memberId: 'm1', limit: 2 })).toEqual(['d', 'c']);
      expect(await ids({ memberId: 'nobody', limit: 10 })).toEqual([]);
    });

    test('are exported oldest first, a page at a time, from a time on, none missed or repeated at one time', async () => {
      await store().insertEvents([
        anEvent('x', { time: T0 - MINUTE }),
        anEvent('b', { time: T0 }),
        anEvent('a', { time: T0 }),
        anEvent('c', { time: T0 }),
        anEvent('d', { time: T0 + MINUTE }),
      ]);
      const first = await store().exportEvents(T0, null, 2);
      expect(first.map((event) => event.id)).toEqual(['a', 'b']);
      const second = await store().exportEvents(T0, first[1] ?? null, 2);
      expect(second.map((event) => event.id)).toEqual(['c', 'd']);
      expect(await store().exportEvents(T0, second[1] ?? null, 2)).toEqual([]);
      expect(second[1]).toEqual(anEvent('d', { time: T0 + MINUTE }));
    });

    test('purgeEvents() deletes those at or before the time, in batches, and says how many', async () => {
      const old = Array.from({ length: 300 }, (_, index) => anEvent(`old${index}`, { time: T0 - index }));
      await store().insertEvents([...old, anEvent('kept', { time: T0 + 1 })]);
      expect(await store().purgeEvents(T0)).toBe(300);
      expect((await store().listEvents({ limit: 10 })).map((event) => event.id)).toEqual(['kept']);
      expect(await store().purgeEvents(T0)).toBe(0);
    });
  });
}
