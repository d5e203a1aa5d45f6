/** Partner plugins send the return address under any of these names. */
const RETURN_PARAMETERS = ['ReturnUrl', 'returnUrl', 'ReturnPage'] as const;

export interface LoginForm {
  login: string;
  password: string;
  remember: boolean;
  returnUrl: string | undefined;
  csrf: string | undefined;
}

/** A parsed query or form body: repeated fields arrive as arrays and are ignored, as is anything not text. */
type Fields = Record<string, unknown> | undefined;

/** A field's text; undefined when absent, repeated or not text. */
export function text(fields: Fields, name: string): string | undefined {
  const value = fields?.[name];
  return typeof value === 'string' ? value : undefined;
}

export function returnParameter(fields: Fields): string | undefined {
  return RETURN_PARAMETERS.map((name) => text(fields, name)).find((value) => value !== undefined && value !== '');
}

export function loginForm(body: Fields): LoginForm {
  return {
    login: text(body, 'login') ?? '',
    password: text(body, 'password') ?? '',
    remember: text(body, 'remember') !== undefined,
    returnUrl: returnParameter(body),
    csrf: text(body, 'csrf'),
  };
}

/** The second step of a sign-in: which step, the challenge that stands for the checked password, the code. */
export interface StepForm {
  step: 'code' | 'setup';
  challenge: string;
  /** The code from the app, or else the recovery code, as typed. */
  code: string;
  /** Whether the code came from the recovery code field. */
  recovery: boolean;
  remember: boolean;
  returnUrl: string | undefined;
  csrf: string | undefined;
}

/** The second step's form, or undefined for the password step (a form without `step`). */
export function stepForm(body: Fields): StepForm | undefined {
  const step = text(body, 'step');
  if (step !== 'code' && step !== 'setup') return undefined;
  const code = text(body, 'code')?.trim() ?? '';
  const recovery = code ? '' : (text(body, 'recovery')?.trim() ?? '');
  return {
    step,
    challenge: text(body, 'challenge') ?? '',
    code: code || recovery,
    recovery: recovery !== '',
    remember: text(body, 'remember') !== undefined,
    returnUrl: returnParameter(body),
    csrf: text(body, 'csrf'),
  };
}
