import type { Request, Response } from 'express';
import type { AccountResult } from '../../service/account.js';
import type { AccountProblem } from '../account-views.js';
import type { AccountKit } from './kit.js';

type Refusal = Exclude<AccountResult, { ok: true }>;

/** A refusal of the account service, as the page shows it on the form it came from. */
function accountProblem(form: 'password' | 'remove', result: Refusal, recovery: boolean): AccountProblem {
  if (result.reason === 'throttled') return { form, reason: 'throttled', retryAfterSeconds: result.retryAfterSeconds ?? 60, recovery };
  return form === 'password'
    ? { form, reason: result.reason === 'wrong-code' ? 'wrong-password' : result.reason }
    : { form, reason: result.reason === 'wrong-code' ? 'wrong-code' : 'wrong-password', recovery };
}

/** The page's status for a problem: 429 throttled, 401 a wrong password or code, 400 anything else. */
function problemStatus(problem: AccountProblem): number {
  return problem.reason === 'throttled' ? 429 : problem.reason.startsWith('wrong-') ? 401 : 400;
}

/** Logs a refusal of the account service under the action asked for, and shows the page with it on its form. */
export function showRefusal(
  account: AccountKit,
  req: Request,
  res: Response,
  change: { action: string; form: 'password' | 'remove'; recovery: boolean },
  result: Refusal,
): Promise<void> {
  account.log(req, res, result.reason, { action: change.action });
  const problem = accountProblem(change.form, result, change.recovery);
  return account.showAccount(req, res, problemStatus(problem), { problem });
}
