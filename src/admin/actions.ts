import type { Request } from 'express';
import type { Config } from '../config/config.js';
import { recoveryLink } from '../service/recovery.js';
import type { EventActor, EventContext } from '../service/events.js';
import type { Services } from '../service/index.js';
import { endpointUrl } from '../web/endpoint-url.js';
import { requestIdOf } from '../web/request-id.js';
import type { Staff } from './staff-access.js';

/** What an action is called on the member's page and its confirmation, and what the page says once done. */
export interface SupportAction {
  /** The button on the member's page and on the confirmation. */
  label: string;
  /** What the confirmation page tells the staff member will happen. */
  consequence: string;
  /** What the member's page says afterwards. */
  done: string;
  /** Whether it may be offered for this member (a recovery link needs mail, and an enabled member with an email). */
  offered(member: { enabled: boolean; email: string }, services: Services): boolean;
  run(context: ActionContext): Promise<void>;
}

export interface ActionContext {
  req: Request;
  config: Config;
  services: Services;
  staff: Staff;
  memberId: string;
}

/** The staff member as the event's actor. */
const actorOf = (staff: Staff): EventActor => ({ kind: 'staff', id: staff.memberId });
/** The staff member's request, as the services record it in their events. */
export const staffContext = (staff: Staff, req: Request): EventContext => ({ actor: actorOf(staff), clientAddress: staff.client, device: staff.device ?? null, requestId: requestIdOf(req) });
/** Where the staff member acted from, as a mail to the member says it. */
const fromOf = (staff: Staff) => ({ client: staff.client, device: staff.device });

/**
 * The support actions, by the name the forms carry; each is recorded by the service that does it as an event
 * whose actor is the staff member. Signing out everywhere ends every session of the member: the
 * services' sessionsEnded event takes it on to the OpenID clients and SAML SPs of those sessions.
 */
export const SUPPORT_ACTIONS = {
  'sign-out-everywhere': {
    label: 'Sign out everywhere',
    consequence: 'Every session of this member ends now, on every device and partner site that checks its sign-in with this service, including the OpenID and SAML sites.',
    done: 'The member has been signed out everywhere.',
    offered: () => true,
    run: async ({ req, services, memberId, staff }) => {
      const context = { ...staffContext(staff, req), reason: 'ended-by-staff' };
      await services.sessions.revokeAllOf(memberId, context);
    },
  },
  'reset-second-factor': {
    label: 'Reset two-step verification',
    consequence: "The member's authenticator app and recovery codes stop working. The member signs in with the password alone, and is told by mail.",
    done: "The member's two-step verification has been reset.",
    offered: () => true,
    run: async ({ req, services, memberId, staff }) => {
      await services.secondFactor.remove(memberId, { by: 'admin', from: fromOf(staff), actor: actorOf(staff), requestId: requestIdOf(req) });
    },
  },
  'send-recovery-link': {
    label: 'Send a password reset link',
    consequence: 'The member gets a mail with a link to choose a new password. Any earlier link stops working.',
    done: 'A password reset link has been sent to the member.',
    offered: (member, services) => services.recovery.enabled && member.enabled && member.email !== '',
    run: async ({ req, config, services, memberId, staff }) => {
      const page = `${new URL(endpointUrl(req, config)).origin}${config.signin.recoveryPaths.reset}`;
      await services.recovery.send(memberId, (token) => recoveryLink(page, token), { actor: actorOf(staff), from: fromOf(staff) });
    },
  },
  disable: {
    label: 'Disable the member',
    consequence: 'The member can no longer sign in, and every session of the member stops answering at once. A later sync from the membership system may enable the member again.',
    done: 'The member has been disabled.',
    offered: (member) => member.enabled,
    run: async ({ services, memberId, staff }) => {
      await services.members.setEnabled(memberId, false, actorOf(staff));
    },
  },
  enable: {
    label: 'Enable the member',
    consequence: 'The member can sign in again.',
    done: 'The member has been enabled.',
    offered: (member) => !member.enabled,
    run: async ({ services, memberId, staff }) => {
      await services.members.setEnabled(memberId, true, actorOf(staff));
    },
  },
} as const satisfies Record<string, SupportAction>;

export type SupportActionName = keyof typeof SUPPORT_ACTIONS;

export function isSupportAction(value: unknown): value is SupportActionName {
  return typeof value === 'string' && Object.hasOwn(SUPPORT_ACTIONS, value);
}
