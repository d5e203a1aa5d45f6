import type { MemberRow, OidcSessionLinkRow, Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { Secrets } from '../secrets.js';
import type { EndedSessions, SessionService } from '../sessions.js';

/** A member signed in on the sign-in page, as the OpenID provider takes them in. */
export interface MemberSignIn {
  member: MemberRow;
  /** The member session's id. */
  sessionId: string;
  /** When the member session began: the member's authentication time. */
  signedInAt: number;
  /** How long ago that was, in seconds. */
  ageSeconds: number;
  /** Whether a code of the member's second factor was given to open it. */
  secondFactor: boolean;
  /** Whether it was opened with a passkey (then without a password or a code). */
  passkey: boolean;
}

/**
 * The OpenID sessions of member sessions. An OpenID session is opened for the member session of the browser's
 * login cookie, and answers only while that session does: it is checked as AuthenticateToken checks a token
 * (revoked, expired, idle, member disabled), and ending the member session ends it.
 */
export class OidcSessionLinks {
  constructor(
    private readonly store: Store,
    private readonly sessions: SessionService,
    private readonly secrets: Secrets,
    private readonly clock: Clock,
  ) {}

  /** The member signed in with one of these login cookies for this domain, or null. */
  async signedIn(cookies: readonly string[], cookieDomain: string): Promise<MemberSignIn | null> {
    const live = await this.#live(cookies, cookieDomain);
    if (!live) return null;
    const { session, member } = live.found;
    const [factor, passkey] = await Promise.all([this.store.getSecondFactor(member.id), this.store.isPasskeySession(session.id)]);
    // Every password sign-in asks a member with a confirmed factor for a code; a factor confirmed after the
    // session began (on the account page) was not asked for by it, nor by a passkey's sign-in.
    const secondFactor = !passkey && factor?.confirmedAt != null && factor.confirmedAt <= session.createdAt;
    return { member, sessionId: session.id, signedInAt: session.createdAt, ageSeconds: (this.clock() - session.createdAt) / 1000, secondFactor, passkey };
  }

  /**
   * Ties the OpenID session `uid` of `memberId` to the member session of one of these login cookies; false when
   * none is a live session of that member.
   */
  async link(uid: string, memberId: string, cookies: readonly string[], cookieDomain: string): Promise<boolean> {
    const live = await this.#live(cookies, cookieDomain, memberId);
    if (!live) return false;
    const { session } = live.found;
    const link: OidcSessionLinkRow = { uid, memberSessionId: session.id, memberId, tokenSealed: this.secrets.seal(live.token) };
    await this.store.linkOidcSession(link);
    return true;
  }

  /** Whether the OpenID session `uid` of `memberId` still has a live member session. */
  async live(uid: string, memberId: string): Promise<boolean> {
    const link = await this.store.findOidcSessionLink(uid);
    if (link?.memberId !== memberId) return false;
    const check = await this.sessions.checkToken(this.secrets.unseal(link.tokenSealed));
    return check.ok && check.found.session.id === link.memberSessionId;
  }

  /** The OpenID sessions of a member session. */
  ofSession(memberSessionId: string): Promise<OidcSessionLinkRow[]> {
    return this.store.findOidcSessionLinks({ memberSessionId });
  }

  /** The OpenID sessions of member sessions that ended. */
  ofEnded(ended: EndedSessions): Promise<OidcSessionLinkRow[]> {
    return this.store.findOidcSessionLinks('sessionId' in ended ? { memberSessionId: ended.sessionId } : ended);
  }

  unlink(uid: string): Promise<void> {
    return this.store.deleteOidcSessionLink(uid);
  }

  async #live(cookies: readonly string[], cookieDomain: string, memberId?: string) {
    for (const cookie of cookies) {
      const check = await this.sessions.checkCookie(cookie, cookieDomain);
      if (check.ok && (memberId === undefined || check.found.member.id === memberId)) return check;
    }
    return null;
  }
}
