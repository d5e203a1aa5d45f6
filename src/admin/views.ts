import type { EventRecord, EventType } from '../service/events.js';
import type { MemberRow, SessionRow, SessionThrough } from '../service/index.js';
import type { SecondFactorStatus } from '../service/second-factor.js';
import type { StaffRole } from '../service/staff.js';
import { SUPPORT_ACTIONS, type SupportActionName } from './actions.js';
import { ADMIN_PATHS, memberHref } from './paths.js';

/** A time as staff read it and repeat it on the phone: to the second, in UTC, said so. */
function staffTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

function nameOf(member: MemberRow): string {
  return member.displayName || `${member.firstName} ${member.lastName}`.trim() || member.username;
}

/** The search page: the form, and the members found (each linked to its page), or why none. */
export function searchView(state: { query: string; members: readonly MemberRow[]; more: boolean; staffRole: StaffRole }): object {
  const searched = state.query.trim() !== '';
  return {
    title: searched ? `Members matching “${state.query.trim()}”` : 'Find a member',
    wide: true,
    action: ADMIN_PATHS.search,
    query: state.query,
    searched,
    staffRole: state.staffRole,
    manageHref: state.staffRole === 'admin' ? ADMIN_PATHS.manage : undefined,
    found: state.members.length > 0,
    count: state.members.length === 1 ? '1 member' : `${state.members.length} members`,
    more: state.more,
    members: state.members.map((member) => ({
      href: memberHref(member.id),
      name: nameOf(member),
      id: member.id,
      username: member.username,
      email: member.email,
      enabled: member.enabled,
    })),
  };
}

/** A live session as the member's page lists it: since when, from where, opened through what, and the sites it reached. */
export interface SessionLine {
  session: SessionRow;
  device: string | undefined;
  oidcClients: readonly string[];
  samlSps: readonly string[];
}

/** What a session was opened through, as staff read it (docs/staff.md). */
function throughText(through: SessionThrough | undefined): string {
  if (through === undefined) return 'a way not recorded (the session is older than the record of it)';
  switch (through.kind) {
    case 'partner':
      return `the partner ${through.name} (its call signed the member in)`;
    case 'signin-page':
      return 'the sign-in page';
    case 'oidc-client':
      return `the sign-in page, for the OpenID site ${through.name}`;
    case 'saml-sp':
      return `the sign-in page, for the SAML site ${through.name}`;
  }
}

/** The OpenID clients and SAML SPs the session signed the member in to, or undefined for none. */
function reachedText(oidcClients: readonly string[], samlSps: readonly string[]): string | undefined {
  const parts = [
    ...(oidcClients.length > 0 ? [`${oidcClients.join(', ')} (OpenID)`] : []),
    ...(samlSps.length > 0 ? [`${samlSps.join(', ')} (SAML)`] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** What each event is called in the member's history; docs/staff.md says what each means. */
const EVENT_LABELS: Readonly<Record<EventType, string>> = {
  'signin-succeeded': 'Signed in',
  'signin-failed': 'Sign-in failed',
  'signed-out': 'Signed out',
  'sessions-ended': 'Sessions ended',
  'password-changed': 'Password changed',
  'password-reset': 'Password reset by link',
  'recovery-requested': 'Reset link asked for',
  'recovery-used': 'Reset link used',
  'recovery-refused': 'Reset link refused',
  'second-factor-enabled': 'Two-step turned on',
  'second-factor-disabled': 'Two-step turned off',
  'second-factor-reset': 'Two-step reset',
  'recovery-code-used': 'Recovery code used',
  'member-created': 'Member created',
  'member-changed': 'Member changed',
  'member-disabled': 'Member disabled',
  'member-enabled': 'Member enabled',
  'member-removed': 'Member removed',
  'oidc-signin': 'Signed in to an OpenID site',
  'saml-signin': 'Signed in to a SAML site',
  'caller-refused': 'Partner refused',
  'staff-granted': 'Staff role granted',
  'staff-revoked': 'Staff role taken away',
  'account-change-refused': 'Account change refused',
  'site-added': 'Site registered',
  'site-changed': 'Site changed',
  'site-removed': 'Site removed',
  'passkey-added': 'Passkey added',
  'passkey-removed': 'Passkey removed',
};

/** Who did it, as staff read it: the member, a staff member (by id), the CLI, a provisioning client or partner (by name). */
function actorText(event: EventRecord): string {
  const { kind, id } = event.actor;
  if (kind === 'member' && id === event.memberId) return 'The member';
  return id === undefined ? kind : `${kind} ${id}`;
}

function eventLine(event: EventRecord): object {
  const from = [event.clientAddress, event.device].filter((part) => part !== null).join(', ');
  return {
    time: staffTime(event.time),
    type: EVENT_LABELS[event.type] ?? event.type,
    reason: [event.reason, event.outcome].filter((part) => part !== null && part !== '').join(' · '),
    from,
    via: event.via ?? '',
    actor: actorText(event),
  };
}

export interface MemberPageState {
  member: MemberRow;
  /** The member's recent events, newest first. */
  events: readonly EventRecord[];
  staffRole: StaffRole | null;
  twoStep: SecondFactorStatus;
  sessions: readonly SessionLine[];
  offered: readonly SupportActionName[];
  notice?: string | undefined;
  problem?: string | undefined;
}

/** A member's page: profile and status, sessions, second factor, and the support actions offered. */
export function memberView(state: MemberPageState): object {
  const { member } = state;
  const { attributes } = member;
  const isMember = attributes.isMember === undefined ? 'Not known' : attributes.isMember ? 'Yes' : 'No';
  return {
    title: nameOf(member),
    wide: true,
    searchHref: ADMIN_PATHS.search,
    notice: state.notice,
    problem: state.problem,
    profile: [
      { term: 'Member id', value: member.id, mono: true },
      { term: 'Username', value: member.username, mono: true },
      { term: 'Email', value: member.email || 'None' },
      { term: 'Name', value: `${member.firstName} ${member.lastName}`.trim() || 'None' },
      ...(member.displayName ? [{ term: 'Display name', value: member.displayName }] : []),
      { term: 'Member flag', value: isMember },
      { term: 'Roles', value: attributes.roles?.map((role) => role.name).join(', ') || 'None' },
      ...(attributes.organisationName ? [{ term: 'Organisation', value: attributes.organisationName }] : []),
      { term: 'Record', value: recordSource(member) },
      ...(state.staffRole ? [{ term: 'Staff role', value: state.staffRole }] : []),
    ],
    enabled: member.enabled,
    twoStep: {
      on: state.twoStep.enabled,
      pending: state.twoStep.pending,
      codesLeft: state.twoStep.recoveryCodesLeft,
    },
    hasSessions: state.sessions.length > 0,
    sessions: state.sessions.map(({ session, device, oidcClients, samlSps }) => ({
      since: staffTime(session.createdAt),
      lastSeen: staffTime(session.lastSeenAt),
      from: session.clientAddress ?? 'Not known',
      device: device ?? session.userAgent ?? 'Not known',
      through: throughText(session.through),
      reached: reachedText(oidcClients, samlSps),
    })),
    hasEvents: state.events.length > 0,
    eventCount: state.events.length,
    events: state.events.map(eventLine),
    actions: state.offered.map((name) => ({ label: SUPPORT_ACTIONS[name].label, href: confirmHref(member.id, name) })),
  };
}

/** Where the member's record came from, as far as the record tells. */
function recordSource(member: MemberRow): string {
  const created = `Created ${staffTime(member.createdAt)}`;
  const changed = member.updatedAt !== member.createdAt ? `, last changed ${staffTime(member.updatedAt)}` : '';
  const external = member.externalId !== null ? `; kept in step by a provisioning client (its id ${member.externalId})` : '';
  return `${created}${changed}${external}`;
}

function confirmHref(memberId: string, action: SupportActionName): string {
  return `${ADMIN_PATHS.confirm}?${new URLSearchParams({ id: memberId, action })}`;
}

/** The confirmation step: what will happen, and the one form that does it. */
export function confirmView(member: MemberRow, action: SupportActionName, csrfToken: string): object {
  const spec = SUPPORT_ACTIONS[action];
  return {
    title: `${spec.label}: ${nameOf(member)}?`,
    memberId: member.id,
    consequence: spec.consequence,
    label: spec.label,
    action: ADMIN_PATHS.action,
    hidden: [
      { name: 'id', value: member.id },
      { name: 'action', value: action },
    ],
    csrfToken,
    cancelHref: memberHref(member.id),
    cancelText: 'Cancel and go back to the member',
  };
}
