/**
 * A filter of /Groups as the store's role search: id and externalId compared exactly, displayName ignoring case
 * (as /Schemas declares it), meta.created and meta.lastModified as instants; the rest of the filter language as
 * for /Users (member-query.ts). Members cannot be filtered on: 400 invalidFilter.
 */
import type { RoleFilter, RoleSearchField } from '../service/index.js';
import type { Filter } from './filter-syntax.js';
import { comparison, declared, refused, type Field } from './member-query.js';
import { GROUP_SCHEMA } from './urns.js';

const FIELDS = new Map<string, () => Field<RoleSearchField>>([
  ['id', () => ({ field: 'id', type: 'string', caseExact: true })],
  ['externalid', () => ({ field: 'externalId', type: 'string', caseExact: true })],
  ['displayname', () => declared<RoleSearchField>('name', 'group', 'displayName')],
  ['meta.created', () => ({ field: 'createdAt', type: 'dateTime', caseExact: true })],
  ['meta.lastmodified', () => ({ field: 'updatedAt', type: 'dateTime', caseExact: true })],
]);

export function roleFilterOf(filter: Filter): RoleFilter {
  switch (filter.kind) {
    case 'and':
    case 'or':
      return { kind: filter.kind, filters: filter.filters.map(roleFilterOf) };
    case 'not':
      return { kind: 'not', filter: roleFilterOf(filter.filter) };
    case 'valuePath':
      throw refused(`"${filter.attribute}" cannot be filtered on: Groups are filtered on id, externalId, displayName and meta`);
    default: {
      const name = filter.attribute.toLowerCase().replace(`${GROUP_SCHEMA.toLowerCase()}:`, '');
      const field = FIELDS.get(name)?.();
      if (field === undefined) throw refused(`"${filter.attribute}" cannot be filtered on: Groups are filtered on id, externalId, displayName and meta`);
      return filter.kind === 'present' ? { kind: 'present', field: field.field } : comparison(field, filter.operator, filter.value, filter.attribute);
    }
  }
}
