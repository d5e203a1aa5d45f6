import { errorSummary, fieldView, throttledText } from './views.js';

/** A hidden form field the step carries over (CSRF proof, challenge, "keep me signed in", return address). */
export interface HiddenField {
  name: string;
  value: string;
}

/** Why a code was not taken. */
export type CodeProblem = { reason: 'missing' } | { reason: 'invalid' } | { reason: 'throttled'; retryAfterSeconds: number };

const MISSING_CODE = 'Enter the 6-digit code from your authenticator app';
const WRONG_CODE = 'The code is not right, or it has been used already. Enter the newest code your app shows.';
const WRONG_RECOVERY = 'The recovery code is not right, or it has been used already';
const WRONG_SETUP_CODE = 'The code is not right. Check that the time on your phone is right, then enter the newest code the app shows.';

/** The message for a code field, or undefined. */
function codeError(problem: CodeProblem | undefined, field: 'code' | 'recovery' | 'setup'): string | undefined {
  if (!problem) return undefined;
  if (problem.reason === 'missing') return MISSING_CODE;
  if (problem.reason === 'throttled') return throttledText(problem.retryAfterSeconds);
  return field === 'recovery' ? WRONG_RECOVERY : field === 'setup' ? WRONG_SETUP_CODE : WRONG_CODE;
}

export interface CodeStepState {
  action: string;
  hidden: HiddenField[];
  /** Where "cancel" leads: the sign-in page, with the return address. */
  restartHref: string;
  problem?: CodeProblem | undefined;
  /** The refused code came from the recovery code field: its error goes there. */
  recovery?: boolean;
}

/** The second step of a sign-in: a code from the app, or a recovery code. */
export function codeStepView(state: CodeStepState): object {
  const onRecovery = state.recovery === true && state.problem?.reason === 'invalid';
  const error = codeError(state.problem, onRecovery ? 'recovery' : 'code');
  const code = fieldView('code', onRecovery ? undefined : error, 'code-hint');
  const recovery = fieldView('recovery', onRecovery ? error : undefined, 'recovery-hint');
  return {
    title: 'Enter your code',
    action: state.action,
    hidden: state.hidden,
    restartHref: state.restartHref,
    code,
    recovery,
    recoveryOpen: onRecovery,
    ...errorSummary([
      ['code', code],
      ['recovery', recovery],
    ]),
  };
}

export interface SetupState {
  action: string;
  hidden: HiddenField[];
  secret: string;
  /** The QR code, as SVG markup made by src/signin/qr.ts (rendered unescaped). */
  qrSvg: string;
  /** Set-up is the price of signing in (MFA=required), not the member's choice. */
  required: boolean;
  cancelHref: string;
  cancelText: string;
  problem?: CodeProblem | undefined;
}

/** Setting up the factor: the QR code, the key as text, and the first code that confirms it. */
export function setupView(state: SetupState): object {
  const code = fieldView('code', codeError(state.problem, 'setup'), 'code-hint');
  return {
    title: 'Set up two-step verification',
    wide: true,
    action: state.action,
    hidden: state.hidden,
    secret: state.secret,
    secretGrouped: groupsOf4(state.secret),
    qrSvg: state.qrSvg,
    required: state.required,
    cancelHref: state.cancelHref,
    cancelText: state.cancelText,
    code,
    ...errorSummary([['code', code]]),
  };
}

/** The recovery codes, shown once, then on to `continueHref`. */
export function recoveryCodesView(codes: readonly string[], continueHref: string): object {
  return { title: 'Save your recovery codes', codes, continueHref };
}

/** A base32 key in groups of four for reading it out or typing it in: `ABCD EFGH …`. */
function groupsOf4(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}
