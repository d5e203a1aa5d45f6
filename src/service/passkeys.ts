import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { COSEALG } from '@simplewebauthn/server/helpers';
import type { MemberRow, PasskeyChallengeRow, PasskeyRow, SessionRow, Store } from '../store/store.js';
import { StoreConflictError } from '../store/store.js';
import type { Clock } from './clock.js';
import type { EventContext, EventService } from './events.js';
import { changeContext, type Change, type MemberNotices } from './member-notices.js';
import { randomSecret, type Secrets } from './secrets.js';
import type { IssuedSession, SessionService } from './sessions.js';
import type { SessionPlace } from './signin.js';
import type { SignInThrottle } from './throttle.js';

/** Where a ceremony happens: the relying-party id and the one origin its answer must come from (the page's own). */
export interface RelyingParty {
  id: string;
  origin: string;
}

/** A ceremony's options for the browser, and the nonce the browser keeps (in a cookie) to finish it. */
export interface Ceremony<Options> {
  nonce: string;
  options: Options;
}

/** Why a passkey did not sign in; each a clear message on the page, and the reason of the event. */
export type PasskeyRefusal = 'expired' | 'unknown-passkey' | 'member-disabled' | 'refused' | 'throttled';

export type PasskeySignIn =
  | { ok: true; member: MemberRow; issued: IssuedSession; passkey: PasskeyRow }
  | { ok: false; reason: Exclude<PasskeyRefusal, 'throttled'> }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

export type PasskeyAdded = { ok: true; passkey: PasskeyRow } | { ok: false; reason: 'not-recent' | 'expired' | 'refused' | 'exists' };

/** How long a ceremony may take: the browser's own time-out, and a little for the round trips. */
const CHALLENGE_TTL_MS = 5 * 60_000;
const BROWSER_TIMEOUT_MS = 4 * 60_000;
/** A credential id is at most 1023 bytes (WebAuthn L3): 1364 characters of base64url. */
const MAX_CREDENTIAL_ID_LENGTH = 1364;
export const MAX_PASSKEY_NAME_LENGTH = 60;
/**
 * The key types a passkey may have: Ed25519, P-256 and RSA, which every authenticator offers. Not the library's
 * default ML-DSA-44, whose checks Node.js still marks experimental.
 */
const ALGORITHMS = [COSEALG.EdDSA, COSEALG.ES256, COSEALG.RS256];
/**
 * How recent a sign-in must be to add a passkey: one left signed in on a shared computer must not let someone add a
 * way in of their own (a password change asks for the current password for the same reason; a member may have none).
 */
export const RECENT_SIGN_IN_MS = 10 * 60_000;

/** The WebAuthn user handle of a member: the id's bytes, which name the member and nothing else about them. */
function userHandle(memberId: string): string {
  return Buffer.from(memberId, 'utf8').toString('base64url');
}

/** The credential id an answer names, when it is one: the only field read before the library checks the rest. */
function credentialIdOf(response: unknown): string | null {
  const id = typeof response === 'object' && response !== null ? (response as { id?: unknown }).id : undefined;
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_CREDENTIAL_ID_LENGTH && /^[A-Za-z0-9_-]+$/.test(id) ? id : null;
}

/**
 * Passkeys (WebAuthn discoverable credentials, user verification required), through @simplewebauthn/server, which
 * does every check of what the browser sends. A member adds them on the account page and signs in with one alone: a
 * user-verified passkey is two factors (the device and its PIN or biometric), so no password and no second step.
 * Each ceremony's challenge is stored under the keyed hash of a nonce only the browser holds, taken once, and good
 * for CHALLENGE_TTL_MS, so that it answers one browser, once, for a short time, on any instance sharing the store.
 * Sign-ins are throttled and recorded as password sign-ins are.
 */
export class PasskeyService {
  constructor(
    private readonly store: Store,
    private readonly sessions: SessionService,
    private readonly throttle: SignInThrottle,
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    private readonly events: EventService,
    private readonly notices: MemberNotices,
    /** The name browsers show for the relying party: the organisation's. */
    private readonly rpName: string,
  ) {}

  /** Whether the session began recently enough to add a passkey with (RECENT_SIGN_IN_MS). */
  isRecent(session: SessionRow): boolean {
    return this.clock() - session.createdAt <= RECENT_SIGN_IN_MS;
  }

  /**
   * Options for adding a passkey for the member: a discoverable credential, user verification required; null when
   * the session is not recent enough.
   */
  async registrationOptions(member: MemberRow, session: SessionRow, rp: RelyingParty): Promise<Ceremony<PublicKeyCredentialCreationOptionsJSON> | null> {
    if (!this.isRecent(session)) return null;
    const existing = await this.store.listPasskeys(member.id);
    const options = await generateRegistrationOptions({
      rpName: this.rpName,
      rpID: rp.id,
      userName: member.email || member.username,
      userDisplayName: `${member.firstName} ${member.lastName}`.trim() || member.username,
      userID: Buffer.from(member.id, 'utf8'),
      timeout: BROWSER_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({ id: passkey.id, transports: passkey.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    return { nonce: await this.#challenge('register', member.id, options.challenge), options };
  }

  /**
   * Adds the passkey the browser made for this ceremony, named `name`. The member is told by mail, and the event
   * recorded, with where it came from.
   */
  async register(member: MemberRow, session: SessionRow, nonce: string, response: unknown, rp: RelyingParty, name: string, change: Change<'account'>): Promise<PasskeyAdded> {
    const challenge = await this.#take(nonce, 'register');
    if (!this.isRecent(session)) return { ok: false, reason: 'not-recent' };
    if (!challenge || challenge.memberId !== member.id) return { ok: false, reason: 'expired' };
    let info;
    try {
      const verified = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: challenge.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
        supportedAlgorithmIDs: ALGORITHMS,
      });
      if (!verified.verified) return { ok: false, reason: 'refused' };
      info = verified.registrationInfo;
    } catch {
      return { ok: false, reason: 'refused' };
    }
    const passkey: PasskeyRow = {
      id: info.credential.id,
      memberId: member.id,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: info.credential.transports ?? [],
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      name,
      createdAt: this.clock(),
      lastUsedAt: null,
    };
    try {
      await this.store.createPasskey(passkey);
    } catch (error) {
      if (error instanceof StoreConflictError) return { ok: false, reason: 'exists' };
      throw error;
    }
    this.events.record({ ...changeContext(member.id, change), type: 'passkey-added', memberId: member.id });
    this.notices.send(member, { kind: 'passkey_added', passkeyName: name }, change.from);
    return { ok: true, passkey };
  }

  /** Options for signing in with any passkey of this relying party (no username: the passkey names the member). */
  async signInOptions(rp: RelyingParty): Promise<Ceremony<PublicKeyCredentialRequestOptionsJSON>> {
    const options = await generateAuthenticationOptions({ rpID: rp.id, timeout: BROWSER_TIMEOUT_MS, userVerification: 'required' });
    return { nonce: await this.#challenge('sign-in', null, options.challenge), options };
  }

  /**
   * Signs in with the passkey the browser answered this ceremony with: the member's session, opened as a password
   * sign-in opens one, recorded as a sign-in by passkey. Refused: a challenge not this browser's, used or too old
   * (`expired`), a passkey not stored (`unknown-passkey`: never added, or removed), a disabled member, an answer the
   * checks refuse (`refused`: wrong origin or relying party, no user verification, a bad signature, a counter not
   * higher than the one stored, a passkey claiming another device type than it was added with), or a lock.
   */
  async signIn(nonce: string, response: unknown, rp: RelyingParty, place: SessionPlace): Promise<PasskeySignIn> {
    const context: EventContext = { clientAddress: place.clientAddress, device: place.device, via: place.via, requestId: place.requestId };
    const challenge = await this.#take(nonce, 'sign-in');
    if (!challenge) return this.#refused(context, null, 'expired');
    const credentialId = credentialIdOf(response);
    const passkey = credentialId === null ? null : await this.store.findPasskey(credentialId);
    const member = passkey && (await this.store.getMember(passkey.memberId));
    // Unknown passkeys are counted under their credential id, as unknown logins are under the login typed.
    const account = member ? member.username : `passkey:${credentialId ?? ''}`;
    const lock = await this.throttle.check(account, place.clientAddress, this.clock());
    if (lock) return this.#refused(context, member?.id ?? null, 'throttled', lock.retryAfterSeconds);
    if (!passkey || !member) return this.#failed(account, context, null, 'unknown-passkey');
    if (!member.enabled) return this.#failed(account, context, member.id, 'member-disabled');
    const checked = await this.#verify(response as AuthenticationResponseJSON, challenge, passkey, rp);
    const used = checked && (await this.store.usePasskey(passkey.id, { previousCounter: passkey.counter, counter: checked.newCounter, backedUp: checked.credentialBackedUp, usedAt: this.clock() }));
    if (!used) return this.#failed(account, context, member.id, 'refused');
    await this.throttle.success(account);
    const { cookieDomain, persistent, clientAddress, userAgent } = place;
    const issued = await this.sessions.create(member.id, cookieDomain, { persistent: persistent ?? false }, { clientAddress, userAgent });
    await this.store.recordPasskeySession(issued.session.id, passkey.id);
    this.events.record({ ...context, type: 'signin-succeeded', memberId: member.id, outcome: 'passkey' });
    return { ok: true, member, issued, passkey: { ...passkey, counter: checked.newCounter, backedUp: checked.credentialBackedUp, lastUsedAt: this.clock() } };
  }

  /** The member's passkeys, oldest first. */
  list(memberId: string): Promise<PasskeyRow[]> {
    return this.store.listPasskeys(memberId);
  }

  /** Renames one of the member's passkeys; false when it is not theirs. */
  rename(memberId: string, id: string, name: string): Promise<boolean> {
    return this.store.renamePasskey(memberId, id, name);
  }

  /** Removes one of the member's passkeys, recorded; false when it is not theirs. It signs nobody in again. */
  async remove(memberId: string, id: string, change: Change<'account'>): Promise<boolean> {
    const removed = await this.store.deletePasskey(memberId, id);
    if (removed) this.events.record({ ...changeContext(memberId, change), type: 'passkey-removed', memberId });
    return removed;
  }

  /** Whether the member session was opened with a passkey (OpenID's amr, SAML's AuthnContext). */
  isPasskeySession(sessionId: string): Promise<boolean> {
    return this.store.isPasskeySession(sessionId);
  }

  /** The library's checks of an assertion against the stored passkey, and the device type it was added with; null when refused. */
  async #verify(response: AuthenticationResponseJSON, challenge: PasskeyChallengeRow, passkey: PasskeyRow, rp: RelyingParty) {
    try {
      const { verified, authenticationInfo } = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: { id: passkey.id, publicKey: Buffer.from(passkey.publicKey, 'base64url'), counter: passkey.counter, transports: passkey.transports },
        requireUserVerification: true,
      });
      // The user handle, when the authenticator gives one, must be the passkey's member's.
      const handle = response.response.userHandle;
      const ownHandle = handle === undefined || handle === userHandle(passkey.memberId);
      return verified && ownHandle && authenticationInfo.credentialDeviceType === passkey.deviceType ? authenticationInfo : null;
    } catch {
      return null;
    }
  }

  async #challenge(purpose: PasskeyChallengeRow['purpose'], memberId: string | null, challenge: string): Promise<string> {
    const nonce = randomSecret();
    const now = this.clock();
    await this.store.createPasskeyChallenge({ id: this.secrets.hash('passkey-challenge', nonce), purpose, memberId, challenge, expiresAt: now + CHALLENGE_TTL_MS }, now);
    return nonce;
  }

  /** The browser's challenge of this purpose, taken (it answers once), while fresh; null otherwise. */
  async #take(nonce: string, purpose: PasskeyChallengeRow['purpose']): Promise<PasskeyChallengeRow | null> {
    if (nonce === '') return null;
    const row = await this.store.takePasskeyChallenge(this.secrets.hash('passkey-challenge', nonce));
    return row && row.purpose === purpose && row.expiresAt > this.clock() ? row : null;
  }

  /** A failure counted against the account (or unknown credential) and the address, and recorded. */
  async #failed(account: string, context: EventContext & { clientAddress?: string | null | undefined }, memberId: string | null, reason: Exclude<PasskeyRefusal, 'throttled'>): Promise<PasskeySignIn> {
    const locked = await this.throttle.failure(account, context.clientAddress ?? '', this.clock());
    this.events.record({ ...context, type: 'signin-failed', memberId, outcome: locked ? 'locked' : 'refused', reason: `passkey-${reason}` });
    return locked ? { ok: false, reason: 'throttled', retryAfterSeconds: locked.retryAfterSeconds } : { ok: false, reason };
  }

  #refused(context: EventContext, memberId: string | null, reason: PasskeyRefusal, retryAfterSeconds = 0): PasskeySignIn {
    this.events.record({ ...context, type: 'signin-failed', memberId, outcome: 'refused', reason: `passkey-${reason}` });
    return reason === 'throttled' ? { ok: false, reason, retryAfterSeconds } : { ok: false, reason };
  }
}
