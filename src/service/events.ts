import type { EventRow, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { eventId } from './event-ids.js';
import type { EventWriter } from './event-writer.js';

/** Every kind of event recorded (docs/operations.md "Events" says when each is, and its reasons). */
export const EVENT_TYPES = [
  'signin-succeeded',
  'signin-failed',
  'signed-out',
  'sessions-ended',
  'password-changed',
  'password-reset',
  'recovery-requested',
  'recovery-used',
  'recovery-refused',
  'second-factor-enabled',
  'second-factor-disabled',
  'second-factor-reset',
  'recovery-code-used',
  'member-created',
  'member-changed',
  'member-disabled',
  'member-enabled',
  'member-removed',
  'oidc-signin',
  'saml-signin',
  'caller-refused',
  'staff-granted',
  'staff-revoked',
  'account-change-refused',
  'site-added',
  'site-changed',
  'site-removed',
  'passkey-added',
  'passkey-removed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_ACTOR_KINDS = ['member', 'staff', 'cli', 'provisioning', 'import', 'partner', 'system', 'anonymous'] as const;

/**
 * Who did it. `anonymous`: someone not (yet) known as a member, such as a sign-in with an unknown login. `id` is the
 * member's or staff member's id, the provisioning client's or partner's name; none for the CLI or the system.
 */
export type EventActor = { kind: (typeof EVENT_ACTOR_KINDS)[number]; id?: string };

/**
 * Who asked and from where, as the callers of a service pass it down (the pages their request's client, device and
 * request id; a binding the partner; the CLI nothing): what an event records besides what happened.
 */
export interface EventContext {
  /** Default: the member when there is one, anonymous otherwise. */
  actor?: EventActor | undefined;
  clientAddress?: string | null | undefined;
  /** A short description of the device ("Firefox on Windows"), cut to DEVICE_LENGTH. */
  device?: string | null | undefined;
  /** The partner (caller), OpenID client or SAML SP through which it happened. */
  via?: string | null | undefined;
  requestId?: string | null | undefined;
}

/** The actor of what the admin CLI does, and of what a member import file does. */
export const CLI_ACTOR: EventActor = { kind: 'cli' };
export const IMPORT_ACTOR: EventActor = { kind: 'import' };

/** An event as its recording point knows it; what is left out is not known or does not apply. Never a secret. */
export interface NewEvent extends EventContext {
  type: EventType;
  memberId?: string | null | undefined;
  outcome?: string | null | undefined;
  /** Why a refusal was one (wrong-password, throttled, …): docs/operations.md lists them. */
  reason?: string | null | undefined;
}

/** An event as stored and listed. */
export interface EventRecord {
  id: string;
  time: number;
  type: EventType;
  memberId: string | null;
  actor: EventActor;
  clientAddress: string | null;
  device: string | null;
  via: string | null;
  requestId: string | null;
  outcome: string | null;
  reason: string | null;
}

export interface EventFilter {
  memberId?: string | undefined;
  type?: EventType | undefined;
  /** Epoch milliseconds, inclusive. */
  since?: number | undefined;
  /** Default DEFAULT_EVENT_LIMIT, at most MAX_EVENT_LIMIT. */
  limit?: number | undefined;
}

export const DEFAULT_EVENT_LIMIT = 100;
export const MAX_EVENT_LIMIT = 10_000;
/** Bounds on what a row holds of text the client chose (a User-Agent) or the service did not (a partner's name). */
const DEVICE_LENGTH = 200;
const TEXT_LENGTH = 200;
const EXPORT_PAGE = 1000;

const cut = (value: string | null | undefined, length: number): string | null => (value ? value.slice(0, length) : null);

/**
 * The security-relevant events: recorded by the services where they happen (sign-ins, sign-outs, passwords,
 * second factors, members' changes, partners refused…), written in batches off the request path (EventWriter),
 * listed newest first, exported in time order, purged after EVENTS_RETENTION_DAYS.
 */
export class EventService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly writer: EventWriter,
    /** EVENTS_ENABLED: false records nothing; what was recorded before is still listed and exported. */
    private readonly enabled: boolean,
  ) {}

  /** Queues the event to be written; costs no store round trip and never throws. */
  record(event: NewEvent): void {
    if (!this.enabled) return;
    const time = this.clock();
    const memberId = event.memberId ?? null;
    const actor = event.actor ?? (memberId ? { kind: 'member', id: memberId } : { kind: 'anonymous' });
    this.writer.queue({
      id: eventId(time),
      time,
      type: event.type,
      actorKind: actor.kind,
      actorId: cut(actor.id, TEXT_LENGTH),
      memberId,
      clientAddress: cut(event.clientAddress, TEXT_LENGTH),
      device: cut(event.device, DEVICE_LENGTH),
      via: cut(event.via, TEXT_LENGTH),
      requestId: cut(event.requestId, TEXT_LENGTH),
      outcome: cut(event.outcome, TEXT_LENGTH),
      reason: cut(event.reason, TEXT_LENGTH),
    });
  }

  /** Newest first. What this instance recorded until now is written first, so that it is listed. */
  async list(filter: EventFilter = {}): Promise<EventRecord[]> {
    await this.flush();
    const limit = Math.min(MAX_EVENT_LIMIT, Math.max(1, Math.trunc(filter.limit ?? DEFAULT_EVENT_LIMIT)));
    const rows = await this.store.listEvents({
      ...(filter.memberId !== undefined ? { memberId: filter.memberId } : {}),
      ...(filter.type !== undefined ? { type: filter.type } : {}),
      ...(filter.since !== undefined ? { since: filter.since } : {}),
      limit,
    });
    return rows.map(toRecord);
  }

  /** Every event at or after `since`, oldest first, read a page at a time. */
  async *export(since: number): AsyncGenerator<EventRecord> {
    await this.flush();
    let after: EventRow | null = null;
    for (;;) {
      const page: EventRow[] = await this.store.exportEvents(since, after, EXPORT_PAGE);
      for (const row of page) yield toRecord(row);
      if (page.length < EXPORT_PAGE) return;
      after = page[page.length - 1] ?? null;
    }
  }

  /** Writes the events queued (a graceful stop, the end of a CLI command, tests); never rejects. */
  flush(): Promise<void> {
    return this.writer.flush();
  }
}

function toRecord(row: EventRow): EventRecord {
  const actor: EventActor = { kind: row.actorKind as EventActor['kind'] };
  if (row.actorId !== null) actor.id = row.actorId;
  return {
    id: row.id,
    time: row.time,
    type: row.type as EventType,
    memberId: row.memberId,
    actor,
    clientAddress: row.clientAddress,
    device: row.device,
    via: row.via,
    requestId: row.requestId,
    outcome: row.outcome,
    reason: row.reason,
  };
}
