/**
 * /Groups (RFC 7644 §3, RFC 7643 §4.2): the association's roles. List with a filter and paging, read, create,
 * replace, modify, delete; a Group's members are the members who hold the role, each given or taken it as the
 * Group's members change (src/service/roles.ts). If-Match that names another version of the Group is answered
 * 412. A role only members hold (given by the CLI or an import) is a Group at version 0 until written here.
 */
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Logger } from '../log/logger.js';
import type { EventContext, RoleRow, RoleWrite } from '../service/index.js';
import { requestIdOf } from '../web/request-id.js';
import { etagOf, ifMatchAllows, ifNoneMatchHits } from './etag.js';
import { badRequest, ScimError } from './errors.js';
import { parseFilter } from './filter-syntax.js';
import { groupBody, groupPatch, type GroupChanges } from './group-changes.js';
import { roleFilterOf } from './group-query.js';
import { pageOf } from './paging.js';
import type { ScimGroups } from './port.js';
import { project, projectionOf, type Projection } from './projection.js';
import { methodNotAllowed, sendScim } from './scim-response.js';
import { GROUP_SCHEMA, LIST_RESPONSE } from './urns.js';
import { queryParameter } from './values.js';

export interface GroupsDeps {
  groups: ScimGroups;
  logger: Pick<Logger, 'info'>;
  baseUrl(req: Request): string;
  readBody: RequestHandler;
}

/** A Group's members are read this many at a time. */
const MEMBERS_PER_READ = 500;

const notFound = () => new ScimError(404, undefined, 'no Group has this id');
const stale = () => new ScimError(412, undefined, 'the Group has changed since the version named in If-Match');

function by(req: Request, res: Response): EventContext {
  return { actor: { kind: 'provisioning', id: res.locals.client as string }, requestId: requestIdOf(req) };
}

function written(result: RoleWrite | { ok: false; reason: 'notFound' }): RoleRow {
  if (result.ok) return result.role;
  if (result.reason === 'invalid') throw badRequest('invalidValue', result.detail);
  if (result.reason === 'stale') throw new ScimError(409, undefined, 'the Group changed while this request changed it; try again');
  throw notFound();
}

/** Whether the projection keeps a Group's members: if not, they are not read. */
const keepsMembers = (projection: Projection | undefined) => 'members' in project({ schemas: [], id: '', members: [] }, projection);

export function createGroupsRouter({ groups, logger, baseUrl, readBody }: GroupsDeps): Router {
  const router = express.Router();
  const locationOf = (req: Request, id: string) => `${baseUrl(req)}/Groups/${encodeURIComponent(id)}`;

  async function membersOf(req: Request, id: string): Promise<Array<Record<string, string>>> {
    const members: Array<Record<string, string>> = [];
    for (let offset = 0; ; offset += MEMBERS_PER_READ) {
      const page = await groups.holders(id, { offset, limit: MEMBERS_PER_READ });
      for (const member of page.members) members.push({ value: member.id, display: member.username, type: 'User', $ref: `${baseUrl(req)}/Users/${encodeURIComponent(member.id)}` });
      if (page.members.length < MEMBERS_PER_READ) return members;
    }
  }

  async function resource(req: Request, role: RoleRow, projection: Projection | undefined): Promise<Record<string, unknown>> {
    const members = keepsMembers(projection) ? await membersOf(req, role.id) : [];
    const written = role.version > 0;
    const group = {
      schemas: [GROUP_SCHEMA],
      id: role.id,
      ...(role.externalId === null ? {} : { externalId: role.externalId }),
      displayName: role.name,
      ...(members.length > 0 ? { members } : {}),
      meta: {
        resourceType: 'Group',
        ...(written ? { created: new Date(role.createdAt).toISOString(), lastModified: new Date(role.updatedAt).toISOString() } : {}),
        location: locationOf(req, role.id),
        version: etagOf(role.version),
      },
    };
    return project(group, projection);
  }

  const sendGroup = async (req: Request, res: Response, status: number, role: RoleRow, projection: Projection | undefined, headers: Record<string, string> = {}) =>
    sendScim(req, res, status, await resource(req, role, projection), { ETag: etagOf(role.version), ...headers });

  const logChange = (req: Request, res: Response, outcome: 'created' | 'replaced' | 'modified' | 'removed', group: string) =>
    logger.info('provisioning', { outcome, client: res.locals.client as string, group, requestId: requestIdOf(req) });

  /** The Group as read, if If-Match allows a change of it. */
  async function current(req: Request): Promise<RoleRow> {
    const role = await groups.get(req.params.id as string);
    if (role === null) throw notFound();
    if (!ifMatchAllows(req.get('If-Match'), role.version)) throw stale();
    return role;
  }

  /** Writes the changes: the fields (and the members listed whole), then the members added and removed. */
  async function change(req: Request, res: Response, role: RoleRow, changes: GroupChanges): Promise<RoleRow> {
    const members = changes.members === undefined ? undefined : [...changes.members];
    let changed = written(await groups.replace(role, changes.fields, members, by(req, res)));
    if (changes.added.size > 0 || changes.removed.size > 0) changed = written(await groups.changeMembers(changed, [...changes.added], [...changes.removed], by(req, res)));
    return changed;
  }

  router.get('/Groups', async (req, res) => {
    const filter = queryParameter(req.query.filter, 'filter');
    const roleFilter = filter === undefined ? undefined : roleFilterOf(parseFilter(filter));
    const page = pageOf(req.query);
    const projection = projectionOf(req.query);
    const found = await groups.list(roleFilter, { offset: page.offset, limit: page.limit });
    const resources = await Promise.all(found.roles.map((role) => resource(req, role, projection)));
    sendScim(req, res, 200, { schemas: [LIST_RESPONSE], totalResults: found.total, startIndex: page.startIndex, itemsPerPage: resources.length, Resources: resources });
  });

  router.post('/Groups', readBody, async (req, res) => {
    const projection = projectionOf(req.query);
    const changes = groupBody(req.body);
    const role = written(await groups.create(changes.fields, [...(changes.members ?? [])], by(req, res)));
    logChange(req, res, 'created', role.id);
    await sendGroup(req, res, 201, role, projection, { Location: locationOf(req, role.id) });
  });

  router.get('/Groups/:id', async (req, res) => {
    const projection = projectionOf(req.query);
    const role = await groups.get(req.params.id as string);
    if (role === null) throw notFound();
    if (ifNoneMatchHits(req.get('If-None-Match'), role.version)) return sendScim(req, res, 304, undefined, { ETag: etagOf(role.version) });
    await sendGroup(req, res, 200, role, projection);
  });

  router.put('/Groups/:id', readBody, async (req, res) => {
    const projection = projectionOf(req.query);
    const changes = groupBody(req.body);
    const role = await change(req, res, await current(req), changes);
    logChange(req, res, 'replaced', role.id);
    await sendGroup(req, res, 200, role, projection);
  });

  router.patch('/Groups/:id', readBody, async (req, res) => {
    const projection = projectionOf(req.query);
    const role = await current(req);
    const changed = await change(req, res, role, groupPatch(role, req.body));
    logChange(req, res, 'modified', changed.id);
    // Entra ID and Okta read nothing from a PATCH's answer; a projection asks for the Group.
    if (req.query.attributes === undefined && req.query.excludedAttributes === undefined) return sendScim(req, res, 204, undefined, { ETag: etagOf(changed.version) });
    await sendGroup(req, res, 200, changed, projection);
  });

  router.delete('/Groups/:id', async (req, res) => {
    await current(req);
    written(await groups.remove(req.params.id as string, by(req, res)));
    logChange(req, res, 'removed', req.params.id as string);
    sendScim(req, res, 204);
  });

  router.all('/Groups', methodNotAllowed('GET, POST'));
  router.all('/Groups/:id', methodNotAllowed('GET, PUT, PATCH, DELETE'));
  return router;
}
