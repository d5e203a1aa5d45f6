import bodyParser from 'body-parser';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import { holdsValidText, type MemberRow, type Services } from '../service/index.js';
import { ServiceError } from '../service/errors.js';
import { createHostPolicy } from '../web/host-policy.js';
import { requestIdOf } from '../web/request-id.js';
import { isSupportAction, staffContext, SUPPORT_ACTIONS, type SupportActionName } from './actions.js';
import { isManageAction, MANAGE_ACTIONS, type ManageActionName } from './manage-actions.js';
import { issuedView, manageConfirmView, manageView, siteAddedView, siteConfirmView, siteFormView } from './manage-views.js';
import type { AdminPageName, AdminPages } from './pages.js';
import { ADMIN_PATHS, memberHref } from './paths.js';
import { refusal, type SiteValues, type SpMetadataReader } from './site-forms.js';
import { isSiteKind, SITE_FORMS, type SiteKind } from './site-kinds.js';
import { staffOf, staffOnly } from './staff-access.js';
import { confirmView, memberView, searchView } from './views.js';

export interface AdminDeps {
  config: Config;
  services: Services;
  logger: Logger;
  pages: AdminPages;
  /** The names of the OpenID clients a member session signed the member in to (the OpenID provider knows them). */
  oidcClientsOf(memberSessionId: string): Promise<string[]>;
  /** How the SAML identity provider reads an SP's metadata, for the form that adds one. */
  spMetadata: SpMetadataReader;
}

/** The console's forms are two hidden fields and a proof; anything larger is not one of them. */
const FORM_LIMIT = '4kb';

/** A site's form: a SAML SP's metadata (at most 512 KiB) pasted, as a browser encodes it, with room to spare. */
const SITE_FORM_LIMIT = '2mb';

/** How many of a member's events the page shows, newest first. */
const HISTORY_LENGTH = 50;

/** What went wrong with an action, as the member's page says it (`?problem=…`: fixed keys, never the query's text). */
const PROBLEMS = {
  'member-disabled': 'The member is disabled: a password reset link would not work. Enable the member first.',
  'not-offered': 'That action does not apply to this member as the member is now.',
} as const;

const field = (source: unknown, name: string): string | undefined => {
  const value = (source as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * The staff console at ADMIN_PATH (docs/staff.md): find a member, read the member's page, and act for the member
 * (sign out everywhere, reset the second factor, send a recovery link, disable, enable). Only staff with a second
 * factor get in (staff-access.ts). Every action is asked for on a confirmation page, sent as a POST from the
 * service's own origin with a CSRF proof, logged, and then the browser is sent back to the member's page (303).
 */
export function createAdminRouter(deps: AdminDeps): Router {
  const { config, services, logger, pages } = deps;
  const hosts = createHostPolicy(config);
  const page = (req: Request, res: Response, status: number, name: AdminPageName, view: object) => {
    res.status(status).type('html').send(pages.render(req, res, name, view));
  };
  const message = (req: Request, res: Response, status: number, title: string, text: string) =>
    page(req, res, status, 'message', { title, message: text, link: { href: ADMIN_PATHS.search, text: 'Find a member' } });

  /** The console answers only where the request's host can stand for the service's own origin, and to text anyone can type. */
  const checkedRequest: RequestHandler = (req, res, next) => {
    if (!hosts.ownsOrigin(req)) return message(req, res, 400, 'Wrong address', "This page is served only at the service's own address.");
    if (!holdsValidText(req.query) || !holdsValidText(req.body)) return message(req, res, 400, 'This could not be read', 'What was sent holds a character that cannot be typed.');
    next();
  };
  const parseForm = bodyParser.urlencoded({ extended: false, limit: FORM_LIMIT });
  const staff = staffOnly(deps);

  /** The member named by the query or form, or a 404 page. */
  const memberOr404 = async (req: Request, res: Response, id: string | undefined): Promise<MemberRow | null> => {
    const member = id === undefined || id === '' ? null : await services.members.find(id);
    if (!member) message(req, res, 404, 'No such member', 'No member has this id. Search for the member again.');
    return member;
  };

  const router = express.Router();

  router.get(ADMIN_PATHS.search, checkedRequest, staff, async (req, res) => {
    const query = field(req.query, 'q') ?? '';
    const { members, more } = await services.staff.search(query);
    page(req, res, 200, 'admin-search', searchView({ query, members, more, staffRole: staffOf(res).role }));
  });

  router.get(ADMIN_PATHS.member, checkedRequest, staff, async (req, res) => {
    const member = await memberOr404(req, res, field(req.query, 'id'));
    if (!member) return;
    const done = field(req.query, 'done');
    const problem = field(req.query, 'problem');
    const [staffRole, twoStep, sessions, events] = await Promise.all([
      services.staff.roleOf(member.id),
      services.secondFactor.status(member.id),
      services.sessions.list({ memberId: member.id }),
      services.events.list({ memberId: member.id, limit: HISTORY_LENGTH }),
    ]);
    const spNames = new Map((await services.saml.sps.list()).map((sp) => [sp.id, sp.name]));
    const lines = await Promise.all(
      sessions.map(async (session) => ({
        session,
        device: pages.deviceName(session.userAgent),
        oidcClients: await deps.oidcClientsOf(session.id),
        samlSps: (await services.saml.sessions.ofSession(session.id)).map((participant) => spNames.get(participant.spId) ?? participant.spId),
      })),
    );
    const offered = (Object.keys(SUPPORT_ACTIONS) as SupportActionName[]).filter((name) => SUPPORT_ACTIONS[name].offered(member, services));
    const view = memberView({
      member,
      events,
      staffRole,
      twoStep,
      sessions: lines,
      offered,
      notice: isSupportAction(done) ? SUPPORT_ACTIONS[done].done : undefined,
      problem: problem !== undefined && Object.hasOwn(PROBLEMS, problem) ? PROBLEMS[problem as keyof typeof PROBLEMS] : undefined,
    });
    page(req, res, 200, 'admin-member', view);
  });

  router.get(ADMIN_PATHS.confirm, checkedRequest, staff, async (req, res) => {
    const member = await memberOr404(req, res, field(req.query, 'id'));
    if (!member) return;
    const action = field(req.query, 'action');
    if (!isSupportAction(action)) return res.redirect(303, memberHref(member.id));
    page(req, res, 200, 'admin-confirm', confirmView(member, action, pages.formToken(req, res)));
  });

  /**
   * A staff action's POST as both forms send it: the staff member, the action named, its log line ('staff action',
   * with the outcome), and whether the form's CSRF proof checked (a refusal is logged here as refused:csrf).
   */
  const posted = (req: Request, res: Response) => {
    const actor = staffOf(res);
    const action = field(req.body, 'action');
    const log = (outcome: string, fields: Record<string, unknown> = {}) =>
      logger.info('staff action', { outcome, action: action ?? null, staff: actor.memberId, client: actor.client, ...fields, requestId: requestIdOf(req) });
    const checked = pages.formChecked(req, field(req.body, 'csrf'));
    if (!checked) log('refused:csrf');
    return { actor, action, log, checked };
  };

  router.post(ADMIN_PATHS.action, parseForm, checkedRequest, staff, async (req, res) => {
    const { actor, action, log, checked } = posted(req, res);
    if (!checked) return message(req, res, 403, 'This form has expired', 'For your security, the form could not be checked. Open the member’s page again and act from there.');
    const member = await memberOr404(req, res, field(req.body, 'id'));
    if (!member) return;
    if (!isSupportAction(action) || !SUPPORT_ACTIONS[action].offered(member, services)) {
      log('refused:not-offered', { member: member.id });
      return res.redirect(303, memberHref(member.id, { problem: 'not-offered' }));
    }
    try {
      await SUPPORT_ACTIONS[action].run({ req, config, services, staff: actor, memberId: member.id });
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === 'MEMBER_DISABLED')) throw error;
      log('refused:member-disabled', { member: member.id });
      return res.redirect(303, memberHref(member.id, { problem: 'member-disabled' }));
    }
    log('done', { member: member.id });
    res.redirect(303, memberHref(member.id, { done: action }));
  });

  /** The management pages are admin staff's: support staff get 403. */
  const adminOnly: RequestHandler = (req, res, next) => {
    if (staffOf(res).role === 'admin') return next();
    logger.warn('staff console refused', { outcome: 'not-admin', member: staffOf(res).memberId, path: req.path, requestId: requestIdOf(req) });
    page(req, res, 403, 'message', { title: 'Admins only', message: 'Managing the service is for admin staff. Your role is support.', link: { href: ADMIN_PATHS.search, text: 'Find a member' } });
  };

  const showManage = async (req: Request, res: Response, status: number, outcome: { notice?: string; problem?: string }) => {
    const [staff, callers, provisioners, oidcClients, samlSps] = await Promise.all([
      services.staff.list(),
      services.callers.list(),
      services.provisioners.list(),
      services.oidc.clients.list(),
      services.saml.sps.list(),
    ]);
    page(req, res, status, 'admin-manage', manageView({ staff, callers, provisioners, oidcClients, samlSps, ...outcome }));
  };

  /** An action's fields as sent, trimmed; null when one is missing. */
  const inputOf = (action: ManageActionName, source: unknown): Record<string, string> | null => {
    const input: Record<string, string> = {};
    for (const { name } of MANAGE_ACTIONS[action].fields) {
      const value = field(source, name)?.trim();
      if (!value) return null;
      input[name] = value;
    }
    return input;
  };
  const MISSING = 'Fill in every field of the form.';

  router.get(ADMIN_PATHS.manage, checkedRequest, staff, adminOnly, async (req, res) => {
    const done = field(req.query, 'done');
    await showManage(req, res, 200, isManageAction(done) ? { notice: MANAGE_ACTIONS[done].done } : {});
  });

  router.get(ADMIN_PATHS.manageConfirm, checkedRequest, staff, adminOnly, async (req, res) => {
    const action = field(req.query, 'action');
    if (!isManageAction(action)) return res.redirect(303, ADMIN_PATHS.manage);
    const input = inputOf(action, req.query);
    if (!input) return showManage(req, res, 400, { problem: MISSING });
    page(req, res, 200, 'admin-confirm', manageConfirmView(action, input, pages.formToken(req, res)));
  });

  router.post(ADMIN_PATHS.manageAction, parseForm, checkedRequest, staff, adminOnly, async (req, res) => {
    const { actor, action, log, checked } = posted(req, res);
    if (!checked) return message(req, res, 403, 'This form has expired', 'For your security, the form could not be checked. Open the page again and make the change from there.');
    if (!isManageAction(action)) return res.redirect(303, ADMIN_PATHS.manage);
    const input = inputOf(action, req.body);
    if (!input) return showManage(req, res, 400, { problem: MISSING });
    let issued;
    try {
      issued = await MANAGE_ACTIONS[action].run(services, input, staffContext(actor, req));
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      // The service's refusals are its fixed texts with the name typed: what was wrong, never a secret.
      log(`refused:${error.code}`);
      return showManage(req, res, error.code.endsWith('_NOT_FOUND') ? 404 : 409, { problem: error.message });
    }
    log('done', input);
    if (issued) return page(req, res, 200, 'admin-issued', issuedView(action, issued));
    res.redirect(303, `${ADMIN_PATHS.manage}?done=${action}`);
  });

  /** A site's form, as typed or carried by its confirmation: its own fields only, as text. */
  const siteValues = (kind: SiteKind, source: unknown): SiteValues =>
    Object.fromEntries(SITE_FORMS[kind].fields.map(({ name }) => [name, field(source, name) ?? '']));
  const showSiteForm = (req: Request, res: Response, status: number, kind: SiteKind, values: SiteValues, problems: Record<string, string>) =>
    page(req, res, status, 'admin-site-form', siteFormView({ kind, values, problems, csrfToken: pages.formToken(req, res) }));

  router.get(ADMIN_PATHS.addSite, checkedRequest, staff, adminOnly, (req, res) => {
    const kind = field(req.query, 'kind');
    if (!isSiteKind(kind)) return res.redirect(303, ADMIN_PATHS.manage);
    showSiteForm(req, res, 200, kind, {}, {});
  });

  /**
   * An OpenID client's or SAML SP's form, in two steps: `review` checks it (the form again, with each problem on its
   * field) and asks for confirmation, `confirm` checks it again and adds the site. The body, larger than the other
   * forms', is read only for admin staff.
   */
  router.post(ADMIN_PATHS.addSite, staff, adminOnly, bodyParser.urlencoded({ extended: false, limit: SITE_FORM_LIMIT }), checkedRequest, async (req, res) => {
    const { actor, log, checked } = posted(req, res);
    if (!checked) return message(req, res, 403, 'This form has expired', 'For your security, the form could not be checked. Open the page again and make the change from there.');
    const kind = field(req.body, 'kind');
    if (!isSiteKind(kind)) return res.redirect(303, ADMIN_PATHS.manage);
    const review = await SITE_FORMS[kind].review(siteValues(kind, req.body), { metadata: deps.spMetadata });
    if (!review.ok) {
      log('refused:invalid', { fields: Object.keys(review.problems) });
      return showSiteForm(req, res, 400, kind, review.values, review.problems);
    }
    if (field(req.body, 'step') !== 'confirm') return page(req, res, 200, 'admin-confirm', siteConfirmView(kind, review.consequence, review.values, pages.formToken(req, res)));
    let added;
    try {
      added = await review.add(services, staffContext(actor, req));
    } catch (error) {
      const problems = refusal(error);
      log(`refused:${(error as ServiceError).code}`);
      return showSiteForm(req, res, 409, kind, review.values, problems);
    }
    log('done', { name: review.values['name'] });
    page(req, res, 200, 'admin-issued', siteAddedView(kind, added));
  });

  return router;
}
