import type { MemberRow } from '../service/index.js';

export type LoginProblem =
  | { reason: 'missing'; login: boolean; password: boolean }
  | { reason: 'invalid' }
  | { reason: 'throttled'; retryAfterSeconds: number };

export interface LoginState {
  loginAction: string;
  csrfToken: string;
  returnUrl?: string | undefined;
  /** The username as typed; the password is never sent back. */
  login?: string;
  remember?: boolean;
  problem?: LoginProblem;
}

interface FieldView {
  value?: string;
  error?: string;
  /** Set on an invalid field: the id of the message that explains it. */
  describedBy?: string;
}

const INVALID = 'The username, email address or password is not correct';

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
    Object.assign(login, { error: `Too many failed attempts to sign in. Try again in ${waitText(problem.retryAfterSeconds)}.`, describedBy: 'login-error' });
  }
  const errors = [
    ...(login.error ? [{ field: 'login', message: login.error }] : []),
    ...(password.error ? [{ field: 'password', message: password.error }] : []),
  ];
  return {
    title: 'Sign in',
    loginAction: state.loginAction,
    csrfToken: state.csrfToken,
    returnUrl: state.returnUrl,
    remember: state.remember ?? false,
    login,
    password,
    errors,
    hasErrors: errors.length > 0,
  };
}

function waitText(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

export function signedInView(member: MemberRow, logoutAction: string, returnUrl: string | undefined): object {
  const fullName = `${member.firstName} ${member.lastName}`.trim();
  return { title: 'Signed in', memberName: fullName || member.username, logoutAction, returnUrl };
}

export function messageView(title: string, message: string, link?: { href: string; text: string }): object {
  return { title, message, link };
}
