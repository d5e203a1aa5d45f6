import type { AccountResult } from '../../service/account.js';
import type { AccountProblem } from '../account-views.js';

/** A refusal of the account service, as the page shows it on the form it came from. */
export function accountProblem(form: 'password' | 'remove', result: Exclude<AccountResult, { ok: true }>, recovery: boolean): AccountProblem {
  if (result.reason === 'throttled') return { form, reason: 'throttled', retryAfterSeconds: result.retryAfterSeconds ?? 60, recovery };
  return form === 'password'
    ? { form, reason: result.reason === 'wrong-code' ? 'wrong-password' : result.reason }
    : { form, reason: result.reason === 'wrong-code' ? 'wrong-code' : 'wrong-password', recovery };
}

/** The page's status for a problem: 429 throttled, 401 a wrong password or code, 400 anything else. */
export function problemStatus(problem: AccountProblem): number {
  return problem.reason === 'throttled' ? 429 : problem.reason.startsWith('wrong-') ? 401 : 400;
}
