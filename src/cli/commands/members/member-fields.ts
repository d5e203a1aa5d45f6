import { TEXT_ATTRIBUTES } from '../../../service/member-attributes.js';
import type { MemberAttributes, MemberRow } from '../../../service/index.js';
import type { CliIo } from '../../context.js';
import { isoTime, printJson, printRecord, type Fields } from '../../output.js';

/** contactNumber → "contact-number": the option's name, which the text output uses too. */
function optionName(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The attributes on one line, in the options' words: `is-member=yes contact-number=… roles=r1:Editor|r2:Reader
 * attr:tier=gold` (extras as the import's attr: columns); null when there are none. --json has them exactly.
 */
function attributesText(attributes: MemberAttributes): string | null {
  const { isMember, roles, extra } = attributes;
  const parts = [
    ...(isMember === undefined ? [] : [`is-member=${isMember ? 'yes' : 'no'}`]),
    ...TEXT_ATTRIBUTES.flatMap((key) => (attributes[key] === undefined ? [] : [`${optionName(key)}=${attributes[key]}`])),
    ...(roles === undefined ? [] : [`roles=${roles.map((role) => `${role.id}:${role.name}`).join('|')}`]),
    ...Object.entries(extra ?? {}).map(([key, value]) => `attr:${key}=${value}`),
  ];
  return parts.length === 0 ? null : parts.join(' ');
}

/** A member as table cells, the attributes on one line. */
export function memberFields(m: MemberRow): Fields {
  return {
    id: m.id,
    username: m.username,
    email: m.email,
    firstName: m.firstName,
    lastName: m.lastName,
    enabled: m.enabled,
    created: isoTime(m.createdAt),
    attributes: attributesText(m.attributes),
  };
}

/** The table's fields, with the attributes as the object they are. */
export function memberJson(m: MemberRow): object {
  return { ...memberFields(m), attributes: m.attributes };
}

export function printMember(io: CliIo, asJson: boolean, m: MemberRow): void {
  if (asJson) printJson(io, memberJson(m));
  else printRecord(io, false, memberFields(m));
}
