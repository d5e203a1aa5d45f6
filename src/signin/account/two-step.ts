import type { Request, RequestHandler, Response } from 'express';
import { ServiceError } from '../../service/errors.js';
import type { MemberRow } from '../../service/index.js';
import { text } from '../form.js';
import { qrSvg } from '../qr.js';
import { recoveryCodesView, setupView, type CodeProblem } from '../step-views.js';
import type { AccountKit } from './kit.js';
import { showRefusal } from './refusals.js';

/** What authenticator apps show next to the issuer: the member's email, or else the username. */
function accountName(member: MemberRow): string {
  return member.email || member.username;
}

/** The set-up page of the secret being set up; without one, back to the account page. */
async function showSetup(account: AccountKit, req: Request, res: Response, status: number, problem?: CodeProblem): Promise<void> {
  const { pages, paths, csrf, signedOf } = account;
  const { member } = signedOf(res);
  const setup = await pages.services.secondFactor.pendingSetup(member.id, accountName(member));
  if (!setup) return res.redirect(303, paths.self);
  const view = setupView({
    action: paths.confirm,
    hidden: [{ name: 'csrf', value: csrf.issue(req, res) }],
    secret: setup.secret,
    qrSvg: await qrSvg(setup.uri),
    required: false,
    cancelHref: paths.self,
    cancelText: 'Cancel and go back to your account',
    problem,
  });
  pages.page(res, status, 'setup', view);
}

/** The secret being set up, shown by GET until it is confirmed, so that a reload shows the same one. */
export function setupPage(account: AccountKit): RequestHandler {
  return (req, res) => showSetup(account, req, res, 200);
}

/** A new secret to set up (POST); a member who has a second factor already is sent back to the account page. */
export function beginSetup(account: AccountKit): RequestHandler {
  const { pages, paths, signedOf } = account;
  return async (_req, res) => {
    const { member } = signedOf(res);
    try {
      await pages.services.secondFactor.beginSetup(member.id, accountName(member));
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === 'SECOND_FACTOR_ENABLED')) throw error;
      return res.redirect(303, paths.self);
    }
    res.redirect(303, paths.setup);
  };
}

/** The first code from the app turns the second factor on, and the recovery codes are shown, this once. */
export function confirmSetup(account: AccountKit): RequestHandler {
  const { pages, paths, signedOf, log } = account;
  return async (req, res) => {
    const { member } = signedOf(res);
    const code = text(req.body, 'code')?.trim() ?? '';
    if (!code) return showSetup(account, req, res, 400, { reason: 'missing' });
    let codes: string[] | null;
    try {
      const { client, device, requestId } = pages.requestContext(req);
      codes = await pages.services.secondFactor.confirmSetup(member.id, code, { by: 'account', from: { client, device }, requestId });
    } catch (error) {
      // Nothing being set up (confirmed already, or turned off meanwhile): the page says how things are.
      if (!(error instanceof ServiceError && error.code === 'SECOND_FACTOR_NOT_PENDING')) throw error;
      return res.redirect(303, paths.self);
    }
    if (!codes) {
      log(req, res, 'wrong-code', { action: 'add-second-factor' });
      return showSetup(account, req, res, 401, { reason: 'invalid' });
    }
    log(req, res, 'second-factor-added');
    pages.page(res, 200, 'recovery-codes', recoveryCodesView(codes, `${paths.self}?done=two-step-on`));
  };
}

/** Turning the second factor off takes the password and a code, or a recovery code. */
export function removeSecondFactor(account: AccountKit): RequestHandler {
  const { pages, signedOf, showAccount, log, done } = account;
  return async (req, res) => {
    const { member } = signedOf(res);
    const password = text(req.body, 'password') ?? '';
    const typedCode = text(req.body, 'code')?.trim() ?? '';
    const recoveryCode = text(req.body, 'recovery')?.trim() ?? '';
    const recovery = !typedCode && recoveryCode !== '';
    const code = typedCode || recoveryCode;
    if (!password || !code) {
      const reason = !password && !code ? 'missing-both' : !password ? 'missing-password' : 'missing-code';
      return showAccount(req, res, 400, { problem: { form: 'remove', reason, recovery } });
    }
    const { client, device, requestId } = pages.requestContext(req);
    const result = await pages.services.account.removeSecondFactor(member, password, code, client, device, requestId);
    if (!result.ok) return showRefusal(account, req, res, { action: 'remove-second-factor', form: 'remove', recovery }, result);
    log(req, res, 'second-factor-removed');
    done(res, 'two-step-off');
  };
}
