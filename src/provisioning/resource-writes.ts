/**
 * The drafts of the whole-resource writes: POST creates from the body alone; PUT replaces (RFC 7644 §3.5.1). A
 * PUT clears the attributes it leaves out, as a replacement does, but keeps `active` and the password, which a
 * client that leaves them out does not mean to change, and the extension's attributes when the body does not
 * mention the extension at all (a client that does not know it).
 */
import { attributeName } from './attribute-names.js';
import { badRequest } from './errors.js';
import { draftOf, emptyDraft, emptyMembership, type MemberDraft } from './member-draft.js';
import { applyResource } from './patch.js';
import type { ProvisionedMember } from './port.js';
import { MEMBER_EXTENSION } from './urns.js';
import { isObject, memberOf } from './values.js';

function withUserName(draft: MemberDraft): MemberDraft {
  if (!draft.userName.trim()) throw badRequest('invalidValue', 'userName is required');
  return draft;
}

export function createdDraft(body: unknown): MemberDraft {
  const draft = emptyDraft();
  applyResource(draft, body);
  return withUserName(draft);
}

/** Whether a User body names the extension: among its schemas, or as (the start of) one of its attributes. */
function mentionsExtension(body: Record<string, unknown>): boolean {
  const schemas = memberOf(body, 'schemas')?.value;
  const listed = Array.isArray(schemas) && schemas.some((schema) => typeof schema === 'string' && schema.toLowerCase() === MEMBER_EXTENSION.toLowerCase());
  return listed || Object.keys(body).some((key) => attributeName(key).schema === 'extension');
}

export function replacementDraft(member: ProvisionedMember, body: unknown): MemberDraft {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'a User is a JSON object');
  const current = draftOf(member);
  const draft: MemberDraft = { ...emptyDraft(), active: current.active, membership: mentionsExtension(body) ? emptyMembership() : current.membership };
  applyResource(draft, body);
  return withUserName(draft);
}
