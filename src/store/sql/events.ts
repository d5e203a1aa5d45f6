import type { EventRow, Store } from '../store.js';
import type { SqlDriver } from './driver.js';
import { insertRows } from './insert-rows.js';
import { inPacedBatches } from './purge.js';

interface EventRecord {
  id: string;
  occurred_at: number;
  type: string;
  actor_kind: string;
  actor_id: string | null;
  member_id: string | null;
  client_address: string | null;
  device: string | null;
  via: string | null;
  request_id: string | null;
  outcome: string | null;
  reason: string | null;
}

const COLUMNS = 'id, occurred_at, type, actor_kind, actor_id, member_id, client_address, device, via, request_id, outcome, reason';
/** Newest first: one member's read backwards through events_member (member_id, occurred_at, id), the others through events_time. */
const NEWEST_FIRST = 'ORDER BY occurred_at DESC, id DESC';

const SQL = {
  exportFirst: `SELECT ${COLUMNS} FROM events WHERE occurred_at >= $1 ORDER BY occurred_at, id LIMIT $2`,
  // The row comparison reads events_time from the cursor on, in both dialects.
  exportAfter: `SELECT ${COLUMNS} FROM events WHERE occurred_at >= $1 AND (occurred_at, id) > ($2, $3) ORDER BY occurred_at, id LIMIT $4`,
  // As the other purges (src/store/sql/purge.ts): batches limited through a primary-key subquery, found through events_time.
  purge: 'DELETE FROM events WHERE id IN (SELECT id FROM events WHERE occurred_at <= $1 LIMIT $2)',
} as const;

const toEvent = (record: EventRecord): EventRow => ({
  id: record.id,
  time: Number(record.occurred_at),
  type: record.type,
  actorKind: record.actor_kind,
  actorId: record.actor_id,
  memberId: record.member_id,
  clientAddress: record.client_address,
  device: record.device,
  via: record.via,
  requestId: record.request_id,
  outcome: record.outcome,
  reason: record.reason,
});

const values = (event: EventRow): unknown[] => [
  event.id,
  event.time,
  event.type,
  event.actorKind,
  event.actorId,
  event.memberId,
  event.clientAddress,
  event.device,
  event.via,
  event.requestId,
  event.outcome,
  event.reason,
];

/** The events: written in batches by the service's writer, read newest first for one member or all, exported in time order. */
export function eventMethods(db: SqlDriver) {
  return {
    async insertEvents(events) {
      if (events.length === 0) return;
      await db.transaction((tx) => insertRows(db, tx, { table: 'events', columns: COLUMNS }, events.map(values)));
    },

    async listEvents(filter) {
      const conditions: string[] = [];
      const params: unknown[] = [];
      const where = (condition: string, value: unknown) => {
        params.push(value);
        conditions.push(`${condition} $${params.length}`);
      };
      if (filter.memberId !== undefined) where('member_id =', filter.memberId);
      if (filter.type !== undefined) where('type =', filter.type);
      if (filter.since !== undefined) where('occurred_at >=', filter.since);
      params.push(filter.limit);
      const whereSql = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')} ` : '';
      const records = await db.rows<EventRecord>(`SELECT ${COLUMNS} FROM events ${whereSql}${NEWEST_FIRST} LIMIT $${params.length}`, params);
      return records.map(toEvent);
    },

    async exportEvents(since, after, limit) {
      const records = after
        ? await db.rows<EventRecord>(SQL.exportAfter, [since, after.time, after.id, limit])
        : await db.rows<EventRecord>(SQL.exportFirst, [since, limit]);
      return records.map(toEvent);
    },

    purgeEvents(before) {
      return inPacedBatches((limit) => db.changes(SQL.purge, [before, limit]));
    },
  } satisfies Partial<Store>;
}
