/**
 * The SCIM 2.0 service provider (RFC 7643, RFC 7644), to be mounted at /scim/v2: /Users, /Groups, and the discovery
 * endpoints /ServiceProviderConfig, /ResourceTypes and /Schemas. Every request needs a provisioning client's
 * bearer token; every refusal is answered in SCIM's error format; each change is logged once, as a
 * `provisioning` line naming the client and the member.
 */
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Router } from 'express';
import type { Logger } from '../log/logger.js';
import { StoreUnavailableError } from '../service/index.js';
import { requestIdOf } from '../web/request-id.js';
import { STORE_UNAVAILABLE_TEXT } from '../web/unavailable-text.js';
import { RESOURCE_TYPES, serviceProviderConfig } from './discovery.js';
import { ScimError } from './errors.js';
import { createGroupsRouter } from './groups.js';
import type { ProvisioningClients, ScimGroups, ScimMembers } from './port.js';
import { readableText } from './readable-text.js';
import { readJsonBody } from './request-body.js';
import { schemaDocuments } from './schemas.js';
import { sendError, sendScim } from './scim-response.js';
import { LIST_RESPONSE } from './urns.js';
import { createUsersRouter } from './users.js';

export interface ScimRouterDeps {
  members: ScimMembers;
  groups: ScimGroups;
  clients: ProvisioningClients;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** The body limit (MAX_BODY_BYTES). */
  maxBodyBytes: number;
  /** The SCIM root as the client reached it (https://host/scim/v2): meta.location and Location are under it. */
  baseUrl(req: Request): string;
  /** The client's address, as the throttles count it (src/web/client-address.ts). */
  clientAddress(req: Request): string;
}

/** `Authorization: Bearer TOKEN` (RFC 6750 §2.1); the scheme in any case. */
const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]{1,1024})$/i;

/**
 * A request without a token is refused at once: it guesses nothing, so it is not counted. One with a token is
 * refused as the clients' check says: 401 for a wrong token, 429 with Retry-After once its address has sent too
 * many wrong ones.
 */
function authenticate({ clients, logger, clientAddress }: ScimRouterDeps): RequestHandler {
  return async (req, res, next) => {
    const token = BEARER.exec(req.get('Authorization')?.trim() ?? '')?.[1];
    const check = token === undefined ? ({ ok: false, retryAfterSeconds: null } as const) : await clients.authenticate(token, clientAddress(req));
    if (check.ok) {
      res.locals.client = check.client;
      return next();
    }
    const { retryAfterSeconds } = check;
    const outcome = token === undefined ? 'refused:no-token' : retryAfterSeconds === null ? 'refused:token' : 'refused:throttled';
    logger.warn('provisioning', { outcome, requestId: requestIdOf(req) });
    if (retryAfterSeconds !== null) {
      const error = new ScimError(429, undefined, `too many wrong bearer tokens from this address; try again in ${retryAfterSeconds} seconds`);
      return sendError(req, res, error, { 'Retry-After': String(retryAfterSeconds) });
    }
    const error = new ScimError(401, undefined, "a provisioning client's bearer token is required");
    sendError(req, res, error, { 'WWW-Authenticate': 'Bearer realm="scim"' });
  };
}

function listResponse(resources: unknown[]): Record<string, unknown> {
  return { schemas: [LIST_RESPONSE], totalResults: resources.length, startIndex: 1, itemsPerPage: resources.length, Resources: resources };
}

function discovery(baseUrl: ScimRouterDeps['baseUrl']): Router {
  const router = express.Router();
  const notFound = () => new ScimError(404, undefined, 'no such resource type or schema');
  router.get('/ServiceProviderConfig', (req, res) => sendScim(req, res, 200, serviceProviderConfig(baseUrl(req))));
  router.get('/ResourceTypes', (req, res) => sendScim(req, res, 200, listResponse([...RESOURCE_TYPES.values()].map((type) => type(baseUrl(req))))));
  router.get('/ResourceTypes/:id', (req, res) => {
    const type = RESOURCE_TYPES.get(req.params.id as string);
    if (type === undefined) throw notFound();
    sendScim(req, res, 200, type(baseUrl(req)));
  });
  router.get('/Schemas', (req, res) => sendScim(req, res, 200, listResponse(schemaDocuments(baseUrl(req)))));
  router.get('/Schemas/:id', (req, res) => {
    const schema = schemaDocuments(baseUrl(req)).find(({ id }) => id === req.params.id);
    if (schema === undefined) throw notFound();
    sendScim(req, res, 200, schema);
  });
  return router;
}

function errorHandler(logger: ScimRouterDeps['logger']): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.headersSent || (error as { type?: string }).type === 'request.aborted') return void res.destroy();
    if (error instanceof ScimError) return sendError(req, res, error);
    // The cause (a full disk, a read-only or locked database, a server that cannot be reached) is logged once per burst where the store's calls are
    // watched (src/ops/store-availability.ts); the client is told to try again, as SCIM clients do on a 503.
    if (error instanceof StoreUnavailableError) return sendError(req, res, new ScimError(503, undefined, STORE_UNAVAILABLE_TEXT));
    logger.error('provisioning: unhandled error', { path: req.baseUrl + req.path, error: error instanceof Error ? error.message : String(error), requestId: requestIdOf(req) });
    sendError(req, res, new ScimError(500, undefined, 'the request could not be completed'));
  };
}

export function createScimRouter(deps: ScimRouterDeps): Router {
  const router = express.Router();
  // While no provisioning client exists, its paths are unknown ones: they go on to the app's next routes (404). A
  // store that cannot answer is the error handler's below: SCIM's 503.
  router.use(async (_req, _res, next) => next((await deps.clients.anyExist()) ? undefined : 'router'));
  router.use(authenticate(deps));
  router.use(readableText);
  router.use(discovery(deps.baseUrl));
  const readBody = readJsonBody(deps.maxBodyBytes);
  router.use(createUsersRouter({ members: deps.members, logger: deps.logger, baseUrl: deps.baseUrl, readBody }));
  router.use(createGroupsRouter({ groups: deps.groups, logger: deps.logger, baseUrl: deps.baseUrl, readBody }));
  router.use((req, res) => sendError(req, res, new ScimError(404, undefined, 'no such endpoint')));
  router.use(errorHandler(deps.logger));
  return router;
}
