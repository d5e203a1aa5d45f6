import { isDeepStrictEqual } from 'node:util';
import type { MemberAttributes, MemberChanges, MemberRow } from '../../store/store.js';
import { TEXT_ATTRIBUTES } from '../member-attributes.js';
import { extraValue } from '../extra-key.js';
import type { CheckedFile, CheckedRow, Column } from './check.js';

/** What a row changes in its stored member; the fields are the columns whose value differs. */
export interface RowUpdate {
  line: number;
  /** The stored member's id. */
  id: string;
  /** For MemberService.update; empty when only the enabled column changed. */
  changes: MemberChanges;
  /** For MemberService.setEnabled, when the enabled column changed. */
  enabled?: boolean;
  fields: string[];
}

const TEXT_COLUMNS = ['email', 'firstName', 'lastName'] as const;

/** The columns that are one attribute each, named as MemberAttributes names them. */
const ATTRIBUTE_COLUMNS = ['isMember', ...TEXT_ATTRIBUTES, 'roles'] as const satisfies ReadonlyArray<Column & keyof MemberAttributes>;

/** firstName → first_name: the column as the header row documents it. */
function columnName(column: Column): string {
  return column.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * The stored attributes with the file's attribute columns put in: a column the file has replaces its attribute
 * (an empty cell removes it), one it lacks leaves it, and `attr:KEY` columns replace their keys only. Returns
 * the columns that differ; MemberService.update drops the attributes left undefined or empty.
 */
function mergedAttributes(file: CheckedFile, row: MemberAttributes, stored: MemberAttributes): { attributes: MemberAttributes; fields: string[] } {
  const changed = ATTRIBUTE_COLUMNS.filter((column) => file.columns.has(column) && !isDeepStrictEqual(row[column], stored[column]));
  const changedExtras = [...file.extras.keys()].filter((key) => extraValue(row.extra, key) !== extraValue(stored.extra, key));
  const attributes: MemberAttributes = {
    ...stored,
    ...Object.fromEntries(changed.map((column) => [column, row[column]])),
    extra: { ...stored.extra, ...Object.fromEntries(changedExtras.map((key) => [key, extraValue(row.extra, key) ?? ''])) },
  };
  return { attributes, fields: [...changed.map(columnName), ...changedExtras.map((key) => `attr:${key}`)] };
}

/**
 * How the row's member differs from the stored one, in the columns the file has only: a column the file lacks
 * leaves its field as it is. Null when nothing differs. The id, the username and the password are never
 * changed here: the id and username find the member, and the password is the service's once imported.
 */
export function updateOf(file: CheckedFile, row: CheckedRow, stored: MemberRow): RowUpdate | null {
  const { member } = row;
  const texts = TEXT_COLUMNS.filter((column) => file.columns.has(column) && member[column] !== stored[column]);
  const changes: MemberChanges = Object.fromEntries(texts.map((column) => [column, member[column]]));
  const fields = texts.map(columnName);
  const merged = mergedAttributes(file, member.attributes, stored.attributes);
  if (merged.fields.length > 0) {
    changes.attributes = merged.attributes;
    fields.push(...merged.fields);
  }
  const enabled = row.enabled !== undefined && row.enabled !== stored.enabled ? row.enabled : undefined;
  if (enabled !== undefined) fields.push('enabled');
  if (fields.length === 0) return null;
  return { line: row.line, id: stored.id, changes, ...(enabled === undefined ? {} : { enabled }), fields };
}
