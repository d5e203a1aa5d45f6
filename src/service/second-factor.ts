import { randomInt } from 'node:crypto';
import type { TwoStepChangedBy } from '../mail/mail.js';
import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { ServiceError } from './errors.js';
import type { EventContext, EventService } from './events.js';
import { changeContext, type Change, type ChangeSource, type MemberNotices, type Notice } from './member-notices.js';
import type { Secrets } from './secrets.js';
import { matchingStep, newTotpSecret, totpUri } from './totp.js';

/** How many recovery codes a member gets when the factor is confirmed; each works once. */
export const RECOVERY_CODE_COUNT = 10;
/** Letters and digits that cannot be mistaken for one another when copied from paper. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const RECOVERY_GROUP = 5;

export interface SecondFactorStatus {
  /** A confirmed factor: sign-in asks for a code. */
  enabled: boolean;
  /** A factor being set up, not yet confirmed with a first code. */
  pending: boolean;
  recoveryCodesLeft: number;
}

/** What a member needs to add the factor to an authenticator app. */
export interface SecondFactorSetup {
  /** Base32, for typing in. */
  secret: string;
  /** otpauth:// URI, for the QR code. */
  uri: string;
}

/** Which code was accepted, or why none was. */
export type CodeCheck = { ok: true; kind: 'totp' | 'recovery' } | { ok: false };

/**
 * Members' second factor: a TOTP secret sealed under the server key, confirmed by a first code, and ten
 * single-use recovery codes stored as keyed hashes. A code is accepted once: the store records the last time
 * step used, atomically, so a replay is refused on every instance sharing it.
 */
export class SecondFactorService {
  constructor(
    private readonly store: Store,
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    /** The issuer authenticator apps show next to the account (ORGANIZATION_NAME). */
    private readonly issuer: string,
    /** Tells members of their factor turned on or off, and of a recovery code used. */
    private readonly notices: MemberNotices,
    private readonly events: EventService,
  ) {}

  async status(memberId: string): Promise<SecondFactorStatus> {
    const row = await this.store.getSecondFactor(memberId);
    const enabled = row?.confirmedAt != null;
    return { enabled, pending: row !== null && !enabled, recoveryCodesLeft: enabled ? await this.store.countRecoveryCodes(memberId) : 0 };
  }

  async isEnabled(memberId: string): Promise<boolean> {
    return (await this.store.getSecondFactor(memberId))?.confirmedAt != null;
  }

  /** A new secret to set up, replacing one being set up; refused while a confirmed factor is in place. */
  async beginSetup(memberId: string, account: string): Promise<SecondFactorSetup> {
    if (await this.isEnabled(memberId)) throw new ServiceError('SECOND_FACTOR_ENABLED');
    const secret = newTotpSecret();
    await this.store.replaceSecondFactor({ memberId, secretSealed: this.secrets.seal(secret), createdAt: this.clock(), confirmedAt: null, lastStep: null });
    return { secret, uri: totpUri(secret, this.issuer, account) };
  }

  /** The set-up in progress, to show again (a reload); null when none is. */
  async pendingSetup(memberId: string, account: string): Promise<SecondFactorSetup | null> {
    const row = await this.store.getSecondFactor(memberId);
    const secret = row && row.confirmedAt === null ? this.secrets.unseal(row.secretSealed) : null;
    return secret === null ? null : { secret, uri: totpUri(secret, this.issuer, account) };
  }

  /**
   * Confirms the factor being set up with its first code. Returns the recovery codes, which are shown once and
   * stored only as hashes; null when the code is not the secret's. With `change`, the member is told by mail.
   */
  async confirmSetup(memberId: string, code: string, change?: Change<TwoStepChangedBy>): Promise<string[] | null> {
    const row = await this.store.getSecondFactor(memberId);
    if (!row || row.confirmedAt !== null) throw new ServiceError('SECOND_FACTOR_NOT_PENDING');
    const secret = this.secrets.unseal(row.secretSealed);
    const now = this.clock();
    const step = secret === null ? null : matchingStep(secret, code, now);
    if (step === null) return null;
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const hashes = codes.map((recovery) => this.#recoveryHash(memberId, recovery));
    if (!(await this.store.confirmSecondFactor(memberId, now, step, hashes))) throw new ServiceError('SECOND_FACTOR_NOT_PENDING');
    if (change) {
      this.events.record({ ...changeContext(memberId, change), type: 'second-factor-enabled', memberId });
      await this.#notify(memberId, { kind: 'two_step_enabled', by: change.by }, change.from);
    }
    return codes;
  }

  /**
   * Checks a code from the authenticator app (six digits) or a recovery code, and uses it up. A code of a step
   * already used, an unknown recovery code and anything when the member has no confirmed factor are refused.
   */
  async check(memberId: string, code: string): Promise<CodeCheck> {
    const row = await this.store.getSecondFactor(memberId);
    if (!row || row.confirmedAt === null) return { ok: false };
    // Six digits are the app's; anything else may be a recovery code, some of which are all digits.
    if (/^\d{6}$/.test(code.replace(/\s+/g, ''))) {
      const secret = this.secrets.unseal(row.secretSealed);
      const step = secret === null ? null : matchingStep(secret, code, this.clock());
      return step !== null && (await this.store.useSecondFactorStep(memberId, step)) ? { ok: true, kind: 'totp' } : { ok: false };
    }
    const normalized = normalizeRecoveryCode(code);
    if (normalized.length !== RECOVERY_GROUP * 2) return { ok: false };
    return (await this.store.useRecoveryCode(memberId, this.#recoveryHash(memberId, normalized), this.clock())) ? { ok: true, kind: 'recovery' } : { ok: false };
  }

  /**
   * Removes the member's factor and recovery codes (the member, with password and code; or support). With
   * `change`, a member who had a confirmed factor is told by mail; one that was being set up goes silently. With
   * `change`, recorded: second-factor-disabled by the member, second-factor-reset by support.
   */
  async remove(memberId: string, change?: Change<TwoStepChangedBy>): Promise<boolean> {
    const enabled = change !== undefined && (await this.isEnabled(memberId));
    const removed = await this.store.deleteSecondFactor(memberId);
    if (removed && change) this.events.record({ ...changeContext(memberId, change), type: change.by === 'admin' ? 'second-factor-reset' : 'second-factor-disabled', memberId });
    if (removed && enabled) await this.#notify(memberId, { kind: 'two_step_disabled', by: change.by }, change.from);
    return removed;
  }

  /** Records that a recovery code was used, and tells the member (from where), with how many are left. */
  async recoveryCodeUsed(memberId: string, context: EventContext): Promise<void> {
    this.events.record({ ...context, type: 'recovery-code-used', memberId });
    if (!this.notices.sending) return;
    const from = { client: context.clientAddress ?? undefined, device: context.device ?? undefined };
    await this.#notify(memberId, { kind: 'recovery_code_used', remaining: await this.store.countRecoveryCodes(memberId) }, from);
  }

  async #notify(memberId: string, notice: Notice, from: ChangeSource | undefined): Promise<void> {
    if (!this.notices.sending) return;
    const member = await this.store.getMember(memberId);
    if (member) this.notices.send(member, notice, from);
  }

  #recoveryHash(memberId: string, code: string): string {
    return this.secrets.hash('recovery-code', `${memberId}\0${normalizeRecoveryCode(code)}`);
  }
}

/** Ten characters in two groups, as printed: `abcde-fghjk`. */
function newRecoveryCode(): string {
  const chars = Array.from({ length: RECOVERY_GROUP * 2 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return `${chars.slice(0, RECOVERY_GROUP)}-${chars.slice(RECOVERY_GROUP)}`;
}

/** As typed: any case, with or without the dash and spaces. */
function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}
