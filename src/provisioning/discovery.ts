/**
 * What /ServiceProviderConfig and /ResourceTypes say (RFC 7643 §5, §6), truthfully: PATCH, filters (the whole
 * filter language, at most MAX_RESULTS a page), sorting, password changes and ETags are supported; bulk operations
 * are not; clients authenticate with a bearer token.
 */
import { MAX_RESULTS } from './paging.js';
import { ENTERPRISE_EXTENSION, GROUP_SCHEMA, MEMBER_EXTENSION, RESOURCE_TYPE_SCHEMA, SERVICE_PROVIDER_CONFIG_SCHEMA, USER_SCHEMA } from './urns.js';

export function serviceProviderConfig(baseUrl: string): Record<string, unknown> {
  return {
    schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: true },
    sort: { supported: true },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: "A provisioning client's token, sent as Authorization: Bearer TOKEN.",
        specUri: 'https://www.rfc-editor.org/info/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
  };
}

export function userResourceType(baseUrl: string): Record<string, unknown> {
  return {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A member of the membership system.',
    schema: USER_SCHEMA,
    schemaExtensions: [
      { schema: MEMBER_EXTENSION, required: false },
      { schema: ENTERPRISE_EXTENSION, required: false },
    ],
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/User` },
  };
}

export function groupResourceType(baseUrl: string): Record<string, unknown> {
  return {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    description: "One of the association's roles and the members holding it.",
    schema: GROUP_SCHEMA,
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/Group` },
  };
}

/** The resource types by id. */
export const RESOURCE_TYPES: ReadonlyMap<string, (baseUrl: string) => Record<string, unknown>> = new Map([
  ['User', userResourceType],
  ['Group', groupResourceType],
]);
