import type { Request, Response } from 'express';
import { ServiceError } from '../service/errors.js';
import type { MemberRow } from '../service/index.js';
import type { ChallengeStep, StepResult } from '../service/signin.js';
import { requestIdOf } from '../web/request-id.js';
import { finishSignIn } from './finish.js';
import type { StepForm } from './form.js';
import type { PageKit } from './pages.js';
import { qrSvg } from './qr.js';
import { codeStepView, recoveryCodesView, setupView, type CodeProblem, type HiddenField } from './step-views.js';
import type { LoginState } from './views.js';

/** What the sign-in form carries into the second step besides the challenge. */
export interface KeptFields {
  remember: boolean;
  returnUrl: string | undefined;
}

export interface SecondStep {
  /** After a right password: the step the service asked for, with its challenge (never the password). */
  ask(req: Request, res: Response, asked: { step: ChallengeStep; challenge: string; member: MemberRow }, kept: KeptFields): Promise<void>;
  /** A submitted code (or set-up code); the form's CSRF proof and origin are already checked. */
  answer(req: Request, res: Response, form: StepForm): Promise<void>;
}

type ShowLogin = (req: Request, res: Response, status: number, state: Omit<LoginState, 'loginAction' | 'csrfToken' | 'requestingSite'>) => Promise<void>;

/**
 * The second step of a sign-in, on the sign-in page's own path: a code from the member's app (or a recovery
 * code), or, with MFA=required, setting the factor up. The form carries the service's signed challenge in
 * place of the password; the session is opened only when the code is right.
 */
export function createSecondStep(kit: PageKit, showLogin: ShowLogin): SecondStep {
  const { config, services, logger } = kit;
  const { loginPath } = config.signin;

  const hiddenFields = (req: Request, res: Response, step: ChallengeStep, challenge: string, kept: KeptFields): HiddenField[] => [
    { name: 'csrf', value: kit.loginCsrf.issue(req, res) },
    { name: 'step', value: step },
    { name: 'challenge', value: challenge },
    ...(kept.remember ? [{ name: 'remember', value: 'yes' }] : []),
    ...(kept.returnUrl ? [{ name: 'ReturnUrl', value: kept.returnUrl }] : []),
  ];
  const restartHref = (kept: KeptFields) => (kept.returnUrl ? `${loginPath}?ReturnUrl=${encodeURIComponent(kept.returnUrl)}` : loginPath);

  const showCode = (req: Request, res: Response, status: number, challenge: string, kept: KeptFields, problem?: CodeProblem, recovery = false) => {
    kit.page(res, status, 'code', codeStepView({ action: loginPath, hidden: hiddenFields(req, res, 'code', challenge, kept), restartHref: restartHref(kept), problem, recovery }));
  };

  /** The set-up page of this challenge; false when the challenge no longer stands for a set-up. */
  const showSetup = async (req: Request, res: Response, status: number, challenge: string, kept: KeptFields, problem?: CodeProblem): Promise<boolean> => {
    const pending = await setupOf(challenge);
    if (!pending) return false;
    const view = setupView({
      action: loginPath,
      hidden: hiddenFields(req, res, 'setup', challenge, kept),
      secret: pending.setup.secret,
      qrSvg: await qrSvg(pending.setup.uri),
      required: true,
      cancelHref: restartHref(kept),
      cancelText: 'Cancel signing in',
      problem,
    });
    kit.page(res, status, 'setup', view);
    return true;
  };

  /** A set-up challenge whose member has meanwhile confirmed a factor stands for nothing any more. */
  const setupOf = async (challenge: string) => {
    try {
      return await services.signin.setupFor(challenge);
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'SECOND_FACTOR_ENABLED') return null;
      throw error;
    }
  };

  const expired = (req: Request, res: Response, form: StepForm, client: string) => {
    kit.logAttempt(req, 'expired', client, { step: form.step });
    return showLogin(req, res, 400, { remember: form.remember, returnUrl: form.returnUrl, problem: { reason: 'expired' } });
  };

  /** The step's refusal: the same step again, its error on the code field. */
  const refused = async (req: Request, res: Response, form: StepForm, client: string, result: Exclude<StepResult, { ok: true }>) => {
    if (result.reason === 'expired') return expired(req, res, form, client);
    kit.logAttempt(req, result.reason === 'throttled' ? 'throttled' : 'invalid-code', client, { step: form.step });
    const status = result.reason === 'throttled' ? 429 : 401;
    if (result.reason === 'throttled') res.setHeader('Retry-After', String(result.retryAfterSeconds));
    if (form.step === 'code') return showCode(req, res, status, form.challenge, form, result, form.recovery);
    if (!(await showSetup(req, res, status, form.challenge, form, result))) await expired(req, res, form, client);
  };

  return {
    async ask(req, res, asked, kept) {
      if (asked.step === 'code') return showCode(req, res, 200, asked.challenge, kept);
      if (!(await showSetup(req, res, 200, asked.challenge, kept))) {
        // The factor was confirmed between the password and now (another tab): sign in again, for a code.
        await showLogin(req, res, 400, { ...kept, problem: { reason: 'expired' } });
      }
    },

    async answer(req, res, form) {
      const { ownOrigin, cookieDomain, client, userAgent, device, requestId } = kit.requestContext(req);
      const place = { cookieDomain, clientAddress: client, userAgent, device, requestId, persistent: form.remember, through: await kit.siteOf(form.returnUrl) };
      if (!form.code) {
        kit.logAttempt(req, 'incomplete', client, { step: form.step });
        if (form.step === 'code') return showCode(req, res, 400, form.challenge, form, { reason: 'missing' });
        if (!(await showSetup(req, res, 400, form.challenge, form, { reason: 'missing' }))) await expired(req, res, form, client);
        return;
      }
      if (form.step === 'code') {
        const result = await services.signin.completeWithCode(form.challenge, form.code, place);
        if (!result.ok) return refused(req, res, form, client, result);
        kit.logAttempt(req, 'signed-in', client, { member: result.member.id, step: 'code' });
        return res.redirect(303, await finishSignIn(kit, res, result.issued, form, ownOrigin));
      }
      let result: StepResult;
      try {
        result = await services.signin.completeSetup(form.challenge, form.code, place);
      } catch (error) {
        // Confirmed already (the form sent twice): the factor is on, and signing in now asks for a code.
        if (error instanceof ServiceError && error.code === 'SECOND_FACTOR_NOT_PENDING') return expired(req, res, form, client);
        throw error;
      }
      if (!result.ok) return refused(req, res, form, client, result);
      kit.logAttempt(req, 'signed-in', client, { member: result.member.id, step: 'setup' });
      logger.info('account', { outcome: 'second-factor-added', member: result.member.id, client, requestId: requestIdOf(req) });
      const next = await finishSignIn(kit, res, result.issued, form, ownOrigin);
      kit.page(res, 200, 'recovery-codes', recoveryCodesView(result.recoveryCodes ?? [], next));
    },
  };
}
