import { ENTERPRISE_EXTENSION, MEMBER_EXTENSION, USER_SCHEMA } from './urns.js';

/**
 * An attribute name as SCIM writes it, split: its schema (the core User schema unless it starts with a schema
 * URN: this service's extension, the enterprise extension, or another), the attribute's name in lower case (SCIM attribute names ignore case, RFC 7643 §2.1), and what follows
 * its first dot as written (a sub-attribute, or a member's extra attribute key, which keeps its case). A name
 * that is only a schema URN has the name ''.
 */
export interface AttributeName {
  schema: 'core' | 'extension' | 'enterprise' | 'other';
  name: string;
  sub?: string;
  /** The name as written, without the schema URN, for messages. */
  label: string;
}

const CORE = USER_SCHEMA.toLowerCase();
const EXTENSION = MEMBER_EXTENSION.toLowerCase();
const ENTERPRISE = ENTERPRISE_EXTENSION.toLowerCase();

function split(schema: AttributeName['schema'], rest: string): AttributeName {
  const dot = rest.indexOf('.');
  return dot < 0 ? { schema, name: rest.toLowerCase(), label: rest } : { schema, name: rest.slice(0, dot).toLowerCase(), sub: rest.slice(dot + 1), label: rest };
}

export function attributeName(text: string): AttributeName {
  const lower = text.toLowerCase();
  for (const [schema, urn] of [['extension', EXTENSION], ['enterprise', ENTERPRISE], ['core', CORE]] as const) {
    if (lower === urn) return { schema, name: '', label: text };
    if (lower.startsWith(`${urn}:`)) return split(schema, text.slice(urn.length + 1));
  }
  return lower.startsWith('urn:') ? { schema: 'other', name: lower, label: text } : split('core', text);
}
