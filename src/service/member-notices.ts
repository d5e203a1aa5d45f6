import type { Mail, Mailer, MailOrigin } from '../mail/mail.js';
import type { MemberRow } from '../store/store.js';
import type { Clock } from './clock.js';
import { CLI_ACTOR, type EventContext } from './events.js';

/**
 * Where a change was asked from, as the pages tell it (plain data, no request): the client's address and the
 * device's name ("Firefox on Windows"). Empty for a change made with the admin CLI.
 */
export type ChangeSource = Omit<MailOrigin, 'at'>;

/**
 * Who made a change (`by`) and from where, for the mail that tells the member of it and for its event: `actor`
 * names who did an `admin` change (the CLI's unless told: a staff member), `requestId` the request it came with.
 */
export interface Change<By extends string> {
  by: By;
  from?: ChangeSource | undefined;
  actor?: EventContext['actor'];
  requestId?: string | undefined;
}

/** What a change's event records of who made it and from where: the member themself, unless an administrator. */
export function changeContext(memberId: string, change: Change<string>): EventContext {
  const actor = change.actor ?? (change.by === 'admin' ? CLI_ACTOR : { kind: 'member' as const, id: memberId });
  return { actor, clientAddress: change.from?.client, device: change.from?.device, requestId: change.requestId };
}

type WithoutRecipient<T> = T extends unknown ? Omit<T, 'to' | 'name' | 'origin'> : never;
/** A mail as the service asks for it: its kind and its own fields; the recipient and the time come from here. */
export type Notice = WithoutRecipient<Mail>;

/**
 * Tells members by mail of what happened to their account. send() only queues (the mailer delivers off the
 * request path); a member without an email, or a service without a mailer (no SMTP_URL), gets nothing.
 */
export class MemberNotices {
  constructor(
    private readonly mailer: Mailer | undefined,
    private readonly clock: Clock,
  ) {}

  /** Whether mail is sent at all (SMTP_URL): without, nothing needs reading to write one. */
  get sending(): boolean {
    return this.mailer !== undefined;
  }

  send(member: MemberRow, notice: Notice, from: ChangeSource = {}): void {
    if (this.mailer === undefined || member.email === '') return;
    const name = member.firstName || member.displayName || undefined;
    this.mailer.send({ ...notice, to: member.email, name, origin: { ...from, at: this.clock() } });
  }
}
