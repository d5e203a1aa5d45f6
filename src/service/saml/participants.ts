import type { SamlParticipantRow, Store } from '../../store/store.js';
import type { EndedSessions } from '../sessions.js';

/** An SP taking part in a member session, with the NameID and SessionIndex it was given. */
export type SamlParticipant = SamlParticipantRow;

/**
 * Which SPs take part in which member sessions: single logout tells each of them when the session ends. A
 * participant goes with its member session (deleted by the purge, or with its member) and with its SP.
 */
export class SamlSessions {
  constructor(private readonly store: Store) {}

  /** Records the SP in the member session; signing in to it again replaces its NameID and SessionIndex. */
  join(participant: SamlParticipant): Promise<void> {
    return this.store.joinSamlSession(participant);
  }

  ofSession(memberSessionId: string): Promise<SamlParticipant[]> {
    return this.store.findSamlParticipants({ memberSessionId });
  }

  /** The participants of member sessions that ended (services.sessions' sessionsEnded). */
  ofEnded(ended: EndedSessions): Promise<SamlParticipant[]> {
    return this.store.findSamlParticipants('sessionId' in ended ? { memberSessionId: ended.sessionId } : ended);
  }

  /** The participations of the SP that it knows by this NameID (its LogoutRequest names the member by it). */
  find(spId: string, nameId: string): Promise<SamlParticipant[]> {
    return this.store.findSamlParticipants({ spId, nameId });
  }

  leave(memberSessionId: string, spId: string): Promise<void> {
    return this.store.leaveSamlSession(memberSessionId, spId);
  }
}
