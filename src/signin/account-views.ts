import type { MemberRow, PasskeyRow, SessionRow } from '../service/index.js';
import type { SecondFactorStatus } from '../service/second-factor.js';
import { MAX_PASSKEY_NAME_LENGTH } from '../service/passkeys.js';
import { deviceName } from './user-agent.js';
import { errorSummary, fieldView, memberName, newPasswordText, throttledText, type FieldView } from './views.js';

/** Where the account page's forms go. */
export interface AccountPaths {
  self: string;
  password: string;
  setup: string;
  confirm: string;
  remove: string;
  endSession: string;
  endOthers: string;
  passkeyOptions: string;
  addPasskey: string;
  renamePasskey: string;
  removePasskey: string;
  logout: string;
}

/** What went wrong with a form of the account page, as the service or the form check said it. */
export type AccountProblem =
  | { form: 'password'; reason: 'missing-current' | 'missing-next' | 'missing-both' | 'wrong-password' | 'too-short' | 'too-long' }
  | { form: 'remove'; reason: 'missing-password' | 'missing-code' | 'missing-both' | 'wrong-password'; recovery: boolean }
  | { form: 'remove'; reason: 'wrong-code'; recovery: boolean }
  | { form: 'password' | 'remove'; reason: 'throttled'; retryAfterSeconds: number; recovery?: boolean }
  | { form: 'sessions'; reason: 'not-found' }
  | { form: 'passkeys'; reason: 'not-recent' | 'expired' | 'refused' | 'exists' | 'unreadable' | 'not-found' }
  | { form: 'passkey-name'; passkey: string; reason: 'name-missing' | 'name-too-long' };

const PASSKEY_PROBLEMS = {
  'not-recent': 'For your security, adding a passkey needs a fresh sign-in. Sign in again, then add it.',
  expired: 'Adding the passkey took too long, or the page was too old. Try again.',
  refused: 'The passkey could not be checked, so it was not added. Try again.',
  exists: 'This passkey is added already.',
  unreadable: 'What the browser sent for the passkey could not be read. Reload the page and try again.',
  'not-found': 'That passkey is not one of yours, or it has been removed already.',
} as const;

/** What a successful change says when the page comes back (`?done=…`): fixed texts, never the query's. */
const NOTICES = {
  'password-changed': 'Your password has been changed. You have been signed out everywhere else.',
  'session-ended': 'That session has been signed out.',
  'sessions-ended': 'All your other sessions have been signed out.',
  'two-step-on': 'Two-step verification is on.',
  'two-step-off': 'Two-step verification is off.',
  'passkey-added': 'Your passkey has been added. You can now sign in with it, without your password.',
  'passkey-renamed': 'Your passkey has been renamed.',
  'passkey-removed': 'That passkey has been removed: it no longer signs you in.',
} as const;
export type Notice = keyof typeof NOTICES;

export function isNotice(value: unknown): value is Notice {
  return typeof value === 'string' && Object.hasOwn(NOTICES, value);
}

export interface AccountState {
  member: MemberRow;
  currentSessionId: string;
  sessions: readonly SessionRow[];
  twoStep: SecondFactorStatus;
  mfaRequired: boolean;
  minPasswordLength: number;
  maxPasswordLength: number;
  csrfToken: string;
  paths: AccountPaths;
  notice?: Notice | undefined;
  problem?: AccountProblem | undefined;
  /** The member's passkeys, where passkeys can be used at this address: the list, the scripts, whether one may be added now. */
  passkeys?: { list: readonly PasskeyRow[]; scripts: readonly string[]; recent: boolean; signInAgainHref: string } | undefined;
}

const WRONG_PASSWORD = 'Your password is not correct';
const WRONG_CODE = 'The code is not right, or it has been used already';

/** The account page: the password form, the second factor, and the member's live sessions. */
export function accountView(state: AccountState): object {
  const errors = fieldErrors(state);
  const field = (id: string, hintId?: string): FieldView => fieldView(id, errors[id], hintId);
  const currentPassword = field('current-password');
  const newPassword = field('new-password', 'new-password-hint');
  const offPassword = field('off-password');
  const offCode = field('off-code');
  const offRecovery = field('off-recovery');
  const sessionsError = errors['sessions-title'];
  const passkeysError = errors['passkeys-title'];
  const passkeys = state.passkeys && passkeysView(state.passkeys, state.problem);
  const summary = errorSummary([
    ['current-password', currentPassword],
    ['new-password', newPassword],
    ['off-password', offPassword],
    ['off-code', offCode],
    ['off-recovery', offRecovery],
    ['sessions-title', sessionsError ? { error: sessionsError } : {}],
    ['passkeys-title', passkeysError ? { error: passkeysError } : {}],
    ...(passkeys?.list ?? []).flatMap((passkey): Array<[string, FieldView]> => (passkey.nameField.error ? [[passkey.nameId, passkey.nameField]] : [])),
  ]);
  const sessions = state.sessions.map((session) => sessionView(session, session.id === state.currentSessionId));
  const left = state.twoStep.recoveryCodesLeft;
  return {
    title: 'Your account',
    wide: true,
    memberName: memberName(state.member),
    csrfToken: state.csrfToken,
    paths: state.paths,
    notice: state.notice === undefined ? undefined : NOTICES[state.notice],
    minPasswordLength: state.minPasswordLength,
    twoStep: { ...state.twoStep, codesWord: left === 1 ? 'code' : 'codes' },
    mfaRequired: state.mfaRequired,
    currentPassword,
    newPassword,
    offPassword,
    offCode,
    offRecovery,
    offRecoveryOpen: offRecovery.error !== undefined,
    sessionsError,
    sessions,
    hasOthers: sessions.some((session) => !session.current),
    passkeys,
    passkeysError,
    scripts: state.passkeys?.scripts,
    ...summary,
  };
}

/** Each problem's message, on the field (by id) the member corrects. */
function fieldErrors(state: AccountState): Record<string, string> {
  const problem = state.problem;
  if (!problem) return {};
  if (problem.reason === 'throttled') {
    const text = throttledText(problem.retryAfterSeconds);
    return problem.form === 'password' ? { 'current-password': text } : { 'off-password': text };
  }
  if (problem.form === 'password') {
    switch (problem.reason) {
      case 'missing-current':
        return { 'current-password': 'Enter your current password' };
      case 'missing-next':
        return { 'new-password': newPasswordText('missing', state) };
      case 'missing-both':
        return { 'current-password': 'Enter your current password', 'new-password': newPasswordText('missing', state) };
      case 'wrong-password':
        return { 'current-password': WRONG_PASSWORD };
      case 'too-short':
      case 'too-long':
        return { 'new-password': newPasswordText(problem.reason, state) };
    }
  }
  if (problem.form === 'remove') {
    const codeField = problem.recovery ? 'off-recovery' : 'off-code';
    switch (problem.reason) {
      case 'missing-password':
        return { 'off-password': 'Enter your password' };
      case 'missing-code':
        return { 'off-code': 'Enter a code from your authenticator app, or a recovery code' };
      case 'missing-both':
        return { 'off-password': 'Enter your password', 'off-code': 'Enter a code from your authenticator app, or a recovery code' };
      case 'wrong-password':
        return { 'off-password': WRONG_PASSWORD };
      case 'wrong-code':
        return { [codeField]: WRONG_CODE };
    }
  }
  if (problem.form === 'passkeys') return { 'passkeys-title': PASSKEY_PROBLEMS[problem.reason] };
  if (problem.form === 'passkey-name') return {};
  return { 'sessions-title': 'That session is not one of your other sessions, or it has ended already' };
}

/** The passkeys' section: each with its name (and the rename field's error, if it is the one renamed), when added and last used. */
function passkeysView(state: NonNullable<AccountState['passkeys']>, problem: AccountProblem | undefined) {
  const list = state.list.map((passkey, index) => {
    const nameId = `passkey-name-${index + 1}`;
    const renamed = problem?.form === 'passkey-name' && problem.passkey === passkey.id ? problem : undefined;
    const error = renamed && (renamed.reason === 'name-missing' ? 'Enter a name for the passkey' : `A passkey's name can have at most ${MAX_PASSKEY_NAME_LENGTH} characters`);
    const added = new Date(passkey.createdAt);
    const used = passkey.lastUsedAt === null ? undefined : new Date(passkey.lastUsedAt);
    return {
      id: passkey.id,
      name: passkey.name,
      nameId,
      nameField: fieldView(nameId, error),
      renameOpen: error !== undefined,
      addedIso: added.toISOString(),
      added: readableUtc(added),
      usedIso: used?.toISOString(),
      used: used && readableUtc(used),
      synced: passkey.backedUp,
    };
  });
  return { list, hasAny: list.length > 0, recent: state.recent, signInAgainHref: state.signInAgainHref, maxNameLength: MAX_PASSKEY_NAME_LENGTH };
}

/** One session as the list shows it: when and from where it began, and whether it is this one. */
function sessionView(session: SessionRow, current: boolean): { id: string; current: boolean; device: string; address: string; startedIso: string; started: string } {
  const started = new Date(session.createdAt);
  return {
    id: session.id,
    current,
    device: deviceName(session.userAgent) ?? 'Unknown device',
    address: session.clientAddress ?? 'an unknown address',
    startedIso: started.toISOString(),
    started: readableUtc(started),
  };
}

/** `2026-01-01 14:03 UTC`: the same for every reader, wherever they are. */
function readableUtc(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
