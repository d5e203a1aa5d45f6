/**
 * /Users (RFC 7644 §3): list with a filter and paging, read, create, replace, modify, delete. Changes go through
 * the member's version: If-Match that names another version is answered 412, and a change made by someone else
 * between reading and writing is retried from a fresh read (when the client named no version). The changes of one
 * member made through this instance take turns.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Logger } from '../log/logger.js';
import type { EventContext } from '../service/index.js';
import { requestIdOf } from '../web/request-id.js';
import { etagOf, ifMatchAllows, ifNoneMatchHits } from './etag.js';
import { badRequest, ScimError } from './errors.js';
import { parseFilter } from './filter-syntax.js';
import { draftOf, fieldsOf } from './member-draft.js';
import { memberQueryOf } from './member-query.js';
import { oneAtATime } from './one-at-a-time.js';
import { pageOf } from './paging.js';
import { applyOperations, patchOperations } from './patch.js';
import type { MemberFields, ProvisionedMember, ScimMembers, WriteResult } from './port.js';
import { project, projectionOf, type Projection } from './projection.js';
import { userResource } from './resource.js';
import { createdDraft, replacementDraft } from './resource-writes.js';
import { methodNotAllowed, sendScim } from './scim-response.js';
import { LIST_RESPONSE } from './urns.js';
import { queryParameter } from './values.js';

export interface UsersDeps {
  members: ScimMembers;
  logger: Pick<Logger, 'info'>;
  /** The SCIM root as the client reached it (https://host/scim/v2). */
  baseUrl(req: Request): string;
  /** Reads the JSON body of POST, PUT and PATCH (request-body.ts). */
  readBody: RequestHandler;
}

/**
 * Reads and writes tried, when others change the member meanwhile (another instance, the admin CLI), before the
 * client is told to try again. Before each new attempt the request waits a random time below a bound that doubles
 * from FIRST_WAIT_MS to MAX_WAIT_MS, so that writers that met do not meet again.
 */
const MAX_ATTEMPTS = 8;
const FIRST_WAIT_MS = 5;
const MAX_WAIT_MS = 200;

/** The wait after failed attempt number `attempt` (1 for the first). */
const backoff = (attempt: number) => sleep(Math.random() * Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** (attempt - 1)));

/** What the authentication set: the provisioning client's name. */
function clientOf(res: Response): string {
  return res.locals.client as string;
}

/** Who writes, for the events: the provisioning client, with the request. */
function by(req: Request, res: Response): EventContext {
  return { actor: { kind: 'provisioning', id: clientOf(res) }, requestId: requestIdOf(req) };
}

const notFound = () => new ScimError(404, undefined, 'no User has this id');
const stale = () => new ScimError(412, undefined, 'the User has changed since the version named in If-Match');

function refusal(result: Exclude<WriteResult, { ok: true }>, versionNamed: boolean): ScimError {
  switch (result.reason) {
    case 'notFound':
      return notFound();
    case 'userNameTaken':
      return new ScimError(409, 'uniqueness', 'another User has this userName');
    case 'invalid':
      return badRequest('invalidValue', result.detail);
    case 'stale':
      return versionNamed ? stale() : new ScimError(409, undefined, 'the User kept changing while this request changed it; try again');
  }
}

function written(result: WriteResult, versionNamed: boolean): ProvisionedMember {
  if (!result.ok) throw refusal(result, versionNamed);
  return result.member;
}

export function createUsersRouter({ members, logger, baseUrl, readBody }: UsersDeps): Router {
  const router = express.Router();
  const locationOf = (req: Request, id: string) => `${baseUrl(req)}/Users/${encodeURIComponent(id)}`;

  /** Answers with one User; its projection is read before anything is written, so that a bad one changes nothing. */
  const sendUser = (req: Request, res: Response, status: number, member: ProvisionedMember, projection: Projection | undefined, headers: Record<string, string> = {}) =>
    sendScim(req, res, status, project(userResource(member, locationOf(req, member.id)), projection), { ETag: etagOf(member.version), ...headers });

  const logChange = (req: Request, res: Response, outcome: 'created' | 'replaced' | 'modified' | 'removed', member: string) =>
    logger.info('provisioning', { outcome, client: clientOf(res), member, requestId: requestIdOf(req) });

  const oneWriterPerMember = oneAtATime();

  /**
   * Reads the member, builds its new fields and writes them if they change it (the service tells: a version that
   * did not move is a member left as it was); after the writes of the same member that this instance started
   * before it. Ids are queued as the service looks GUIDs up: trimmed, in lower case.
   */
  function change(req: Request, res: Response, id: string, build: (current: ProvisionedMember) => MemberFields): Promise<{ member: ProvisionedMember; changed: boolean }> {
    const ifMatch = req.get('If-Match');
    return oneWriterPerMember(id.trim().toLowerCase(), async () => {
      for (let attempt = 1; ; attempt++) {
        const current = await members.get(id);
        if (current === null) throw notFound();
        if (!ifMatchAllows(ifMatch, current.version)) throw stale();
        const result = await members.replace(current, build(current), by(req, res));
        const retry = !result.ok && result.reason === 'stale' && ifMatch === undefined && attempt < MAX_ATTEMPTS;
        if (!retry) {
          const member = written(result, ifMatch !== undefined);
          return { member, changed: member.version !== current.version };
        }
        await backoff(attempt);
      }
    });
  }

  router.get('/Users', async (req, res) => {
    const filter = queryParameter(req.query.filter, 'filter');
    const query = memberQueryOf(filter === undefined ? undefined : parseFilter(filter), req.query);
    const page = pageOf(req.query);
    const projection = projectionOf(req.query);
    const found = await members.list(query, { offset: page.offset, limit: page.limit });
    const resources = found.members.map((member) => project(userResource(member, locationOf(req, member.id)), projection));
    sendScim(req, res, 200, { schemas: [LIST_RESPONSE], totalResults: found.total, startIndex: page.startIndex, itemsPerPage: resources.length, Resources: resources });
  });

  router.post('/Users', readBody, async (req, res) => {
    const projection = projectionOf(req.query);
    const member = written(await members.create(fieldsOf(createdDraft(req.body)), by(req, res)), false);
    logChange(req, res, 'created', member.id);
    sendUser(req, res, 201, member, projection, { Location: locationOf(req, member.id) });
  });

  router.get('/Users/:id', async (req, res) => {
    const projection = projectionOf(req.query);
    const member = await members.get(req.params.id as string);
    if (member === null) throw notFound();
    if (ifNoneMatchHits(req.get('If-None-Match'), member.version)) return sendScim(req, res, 304, undefined, { ETag: etagOf(member.version) });
    sendUser(req, res, 200, member, projection);
  });

  router.put('/Users/:id', readBody, async (req, res) => {
    const projection = projectionOf(req.query);
    const { member, changed } = await change(req, res, req.params.id as string, (current) => fieldsOf(replacementDraft(current, req.body)));
    if (changed) logChange(req, res, 'replaced', member.id);
    sendUser(req, res, 200, member, projection);
  });

  router.patch('/Users/:id', readBody, async (req, res) => {
    const projection = projectionOf(req.query);
    const operations = patchOperations(req.body);
    const { member, changed } = await change(req, res, req.params.id as string, (current) => {
      const draft = draftOf(current);
      applyOperations(draft, operations);
      return fieldsOf(draft);
    });
    if (changed) logChange(req, res, 'modified', member.id);
    sendUser(req, res, 200, member, projection);
  });

  router.delete('/Users/:id', async (req, res) => {
    const id = req.params.id as string;
    const ifMatch = req.get('If-Match');
    let expected: number | undefined;
    if (ifMatch !== undefined) {
      const current = await members.get(id);
      if (current === null) throw notFound();
      if (!ifMatchAllows(ifMatch, current.version)) throw stale();
      expected = current.version;
    }
    const outcome = await members.remove(id, expected, by(req, res));
    if (outcome === 'notFound') throw notFound();
    if (outcome === 'stale') throw stale();
    logChange(req, res, 'removed', id);
    sendScim(req, res, 204);
  });

  router.all('/Users', methodNotAllowed('GET, POST'));
  router.all('/Users/:id', methodNotAllowed('GET, PUT, PATCH, DELETE'));
  return router;
}
