import { errorSummary, fieldView, newPasswordText, throttledText } from './views.js';

/** What the request form says went wrong. */
export type ForgotProblem = { reason: 'missing' } | { reason: 'throttled'; retryAfterSeconds: number };

export interface ForgotState {
  action: string;
  csrfToken: string;
  signInHref: string;
  returnUrl: string | undefined;
  /** The login as typed, when the form comes back. */
  login?: string;
  problem?: ForgotProblem | undefined;
}

/** The page that asks which account to send a link for. */
export function forgotView(state: ForgotState): object {
  const problem = state.problem;
  const error =
    problem?.reason === 'missing'
      ? 'Enter your username or email address'
      : problem?.reason === 'throttled'
        ? throttledRequestText(problem.retryAfterSeconds)
        : undefined;
  const login = { value: state.login ?? '', ...fieldView('login', error) };
  return { title: 'Reset your password', ...state, login, ...errorSummary([['login', login]]) };
}

/** The sign-in throttle's text, said of links asked for rather than of sign-ins. */
function throttledRequestText(retryAfterSeconds: number): string {
  return throttledText(retryAfterSeconds).replace('failed attempts to sign in', 'requests for a link');
}

/** What the new-password form says went wrong: the account page's password rules. */
export type ResetProblem = 'missing' | 'too-short' | 'too-long';

export interface ResetState {
  action: string;
  csrfToken: string;
  returnUrl: string | undefined;
  minPasswordLength: number;
  maxPasswordLength: number;
  problem?: ResetProblem | undefined;
}

/** The page where the member chooses a new password with the link's token. */
export function resetView(state: ResetState): object {
  const error = state.problem && newPasswordText(state.problem, state);
  const newPassword = fieldView('new-password', error, 'new-password-hint');
  return { title: 'Choose a new password', ...state, newPassword, ...errorSummary([['new-password', newPassword]]) };
}
