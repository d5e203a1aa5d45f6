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

function text(fields: Fields, name: string): string | undefined {
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
