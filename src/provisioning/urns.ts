/** The SCIM schema and message URNs this service speaks (RFC 7643, RFC 7644), and its media type. */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
/**
 * This service's extension of the User resource: the membership attributes members carry. It ends in `:User`, the
 * resource it extends, as Entra ID's attribute editor expects custom extension attributes to be named
 * (`urn:ietf:params:scim:schemas:extension:NAME:2.0:User:ATTRIBUTE`).
 */
export const MEMBER_EXTENSION = 'urn:ietf:params:scim:schemas:extension:authentication-asmx:2.0:User';
/** RFC 7643 §4.3's enterprise User extension: the member's employee number, organization and department. */
export const ENTERPRISE_EXTENSION = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const ERROR_MESSAGE = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SERVICE_PROVIDER_CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
export const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
export const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export const SCIM_MEDIA_TYPE = 'application/scim+json';
