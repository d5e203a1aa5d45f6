import type { SigninConfig } from '../config/config.js';
import type { MemberRow } from '../service/index.js';

export type LoginProblem =
  | { reason: 'missing'; login: boolean; password: boolean }
  | { reason: 'invalid' }
  | { reason: 'throttled'; retryAfterSeconds: number }
  /** The second step's challenge was too old, or not one the service made: the password is asked again. */
  | { reason: 'expired' }
  /** A passkey did not sign in (src/service/passkeys.ts says why), or its answer could not be read. */
  | { reason: 'passkey'; refusal: 'expired' | 'unknown-passkey' | 'member-disabled' | 'refused' | 'unreadable' };

/** What a page needs to offer passkeys: the scripts it loads, where the browser asks for options and posts its answer. */
export interface PasskeyOffer {
  scripts: readonly string[];
  options: string;
  action: string;
}

export interface LoginState {
  loginAction: string;
  csrfToken: string;
  returnUrl?: string | undefined;
  /** The username as typed; the password is never sent back. */
  login?: string;
  remember?: boolean;
  problem?: LoginProblem;
  /** A fixed text the page opens with (a password just reset); never the query's. */
  notice?: string | undefined;
  /** The password recovery page, linked when mail is sent (SMTP_URL); undefined hides the link. */
  forgotHref?: string | undefined;
  /** The display name of the site the member signs in for (src/signin/pages.ts, RequestingSite), if any. */
  requestingSite?: string | undefined;
  /** Passkeys, where they can be used at this address. */
  passkeys?: PasskeyOffer | undefined;
}

export interface FieldView {
  value?: string;
  error?: string;
  /** Set on an invalid field: the id of the message that explains it. */
  describedBy?: string;
}

const INVALID = 'The username, email address or password is not correct';
const EXPIRED = 'Signing in took too long, or the page was too old. Sign in again.';
const PASSKEY_REFUSALS = {
  expired: 'Signing in with the passkey took too long, or the page was too old. Try again.',
  'unknown-passkey': 'This passkey is not known here: it was removed, or added for another site. Sign in with your password, then add a passkey again on your account page.',
  'member-disabled': 'This account is disabled. Contact us to have it enabled again.',
  refused: 'This passkey could not be checked. Try again, or sign in with your password.',
  unreadable: 'What the browser sent for the passkey could not be read. Reload the page and try again.',
} as const;

/** The login template's view: field errors, and the summary at the top that links to each field. */
export function loginView(state: LoginState): object {
  const login: FieldView = { value: state.login ?? '' };
  const password: FieldView = {};
  const problem = state.problem;
  if (problem?.reason === 'missing') {
    if (problem.login) Object.assign(login, { error: 'Enter your username or email address', describedBy: 'login-error' });
    if (problem.password) Object.assign(password, { error: 'Enter your password', describedBy: 'password-error' });
  } else if (problem?.reason === 'invalid') {
    // One message for both fields, next to the password the visitor re-types: saying which one is wrong would
    // tell whether the account exists.
    Object.assign(password, { error: INVALID, describedBy: 'password-error' });
    login.describedBy = 'password-error';
  } else if (problem?.reason === 'throttled') {
    Object.assign(login, { error: throttledText(problem.retryAfterSeconds), describedBy: 'login-error' });
  } else if (problem?.reason === 'expired') {
    Object.assign(login, { error: EXPIRED, describedBy: 'login-error' });
  }
  const passkeyError = problem?.reason === 'passkey' ? PASSKEY_REFUSALS[problem.refusal] : undefined;
  const errors = [
    ...(login.error ? [{ field: 'login', message: login.error }] : []),
    ...(password.error ? [{ field: 'password', message: password.error }] : []),
    ...(passkeyError ? [{ field: 'passkey-button', message: passkeyError }] : []),
  ];
  return {
    title: 'Sign in',
    loginAction: state.loginAction,
    csrfToken: state.csrfToken,
    returnUrl: state.returnUrl,
    remember: state.remember ?? false,
    notice: state.notice,
    forgotHref: state.forgotHref,
    requestingSite: state.requestingSite,
    passkeys: state.passkeys,
    scripts: state.passkeys?.scripts,
    passkeyError,
    login,
    password,
    errors,
    hasErrors: errors.length > 0,
  };
}

/** What a throttled visitor reads, on every page that counts failures. */
export function throttledText(retryAfterSeconds: number): string {
  return `Too many failed attempts to sign in. Try again in ${waitText(retryAfterSeconds)}.`;
}

function waitText(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/** What a new password's field says when it is missing or breaks the password rules (the account and recovery pages). */
export function newPasswordText(problem: 'missing' | 'too-short' | 'too-long', rules: { minPasswordLength: number; maxPasswordLength: number }): string {
  if (problem === 'missing') return 'Enter a new password';
  return problem === 'too-short'
    ? `Your new password must have at least ${rules.minPasswordLength} characters`
    : `Your new password must have at most ${rules.maxPasswordLength} characters`;
}

/** The member's name as the pages show it: first and last name, or the username. */
export function memberName(member: MemberRow): string {
  return `${member.firstName} ${member.lastName}`.trim() || member.username;
}

export function signedInView(member: MemberRow, paths: { logoutAction: string; accountHref: string }, returnUrl: string | undefined): object {
  return { title: 'Signed in', memberName: memberName(member), ...paths, returnUrl };
}

/** The error summary's entries (each links to its field by id) from fields that may carry an error. */
export function errorSummary(fields: Array<[id: string, field: FieldView]>): { errors: Array<{ field: string; message: string }>; hasErrors: boolean } {
  const errors = fields.flatMap(([id, field]) => (field.error ? [{ field: id, message: field.error }] : []));
  return { errors, hasErrors: errors.length > 0 };
}

/** A form field's view: its error and the ids that describe it (a hint first, then the error). */
export function fieldView(id: string, error: string | undefined, hintId?: string): FieldView {
  const describedBy = [hintId, error ? `${id}-error` : undefined].filter(Boolean).join(' ');
  return { ...(error ? { error } : {}), ...(describedBy ? { describedBy } : {}) };
}

export function messageView(title: string, message: string, link?: { href: string; text: string }): object {
  return { title, message, link };
}

/**
 * Whom the pages tell a member to ask for help (SUPPORT_URL, SUPPORT_EMAIL), as links; undefined when neither is
 * set. Every page's view has it, as `support`.
 */
export function supportView({ url, email }: SigninConfig['support']): object | undefined {
  if (url === undefined && email === undefined) return undefined;
  return {
    url: url && { href: url, text: url.replace(/^https?:\/\//, '').replace(/\/$/, '') },
    email: email && { href: `mailto:${email}`, text: email },
    both: url !== undefined && email !== undefined,
  };
}
