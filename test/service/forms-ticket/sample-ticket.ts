/** The ticket the issuing and hostile-cookie tests start from: a member's half-hour session at NOW. */
import type { FormsTicket } from '../../../src/service/forms-ticket/serializer.js';
import { ticksFromDate } from '../../../src/service/forms-ticket/ticks.js';

export const NOW = new Date('2030-05-01T12:00:00Z');

export const SESSION_MINUTES = 30;

export const TICKET: FormsTicket = {
  version: 2,
  name: 'member@example.org',
  issueTicks: ticksFromDate(NOW),
  expirationTicks: ticksFromDate(new Date(NOW.getTime() + SESSION_MINUTES * 60_000)),
  isPersistent: false,
  userData: '',
  cookiePath: '/',
};
