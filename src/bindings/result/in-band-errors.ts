import type { Config } from '../../config/config.js';
import type { Outcome } from '../../service/authentication.js';
import { errorText, type AsmxError } from '../asmx-errors.js';
import { ERRORS, type InBandCode } from '../errors/catalogue.js';
import { escapeXmlAttribute } from '../../web/xml-text.js';
import { ibridgeDocument } from './ibridge-document.js';

/**
 * The in-band error of a refused outcome (an error reported inside the result string, HTTP 200), from the
 * catalogue (src/bindings/errors/catalogue.ts): a missing session by the operation that looked for it.
 */
export function inBandError(outcome: Extract<Outcome, { kind: 'refused' }>): AsmxError<InBandCode> {
  const { refusal, operation } = outcome;
  switch (refusal.kind) {
    case 'not-signed-in':
      if (operation === 'AuthenticateCookie') return { code: 'COOKIE_NOT_SIGNED_IN' };
      return { code: operation === 'DeleteUserSession' ? 'SESSION_NOT_DELETED' : 'TOKEN_NOT_SIGNED_IN' };
    case 'invalid-credentials':
      return { code: 'INVALID_CREDENTIALS' };
    case 'locked':
      return { code: 'LOCKED', args: [String(refusal.retryAfterSeconds)] };
    case 'second-factor-required':
      return { code: 'SECOND_FACTOR_REQUIRED' };
  }
}

/** Writes an in-band error as one result format does, its field lists resolved once. */
type InBandWriter = (settings: Pick<Config, 'jsonFields'>) => (error: AsmxError<InBandCode>) => string;

/** The wire shape of an in-band error in each result format (docs/wire-format.md#in-band-errors). */
export const IN_BAND_RESULTS: Readonly<Record<Config['resultFormat'], InBandWriter>> = {
  ibridge: () => (error) =>
    ibridgeDocument(`<Errors><Error Number="${ERRORS[error.code].number}" Description="${escapeXmlAttribute(errorText(error))}" /></Errors>`),
  // CRM4M: a failure never contains the word "success"; the description is its message when that field is chosen.
  json: ({ jsonFields }) => {
    const withMessage = jsonFields.some((field) => field.kind === 'known' && field.name === 'message');
    return (error) => JSON.stringify({ status: 'Failure', ...(withMessage ? { message: errorText(error) } : {}) });
  },
  plain: () => () => '',
};
