/**
 * searchMembers' and searchRoles' filters as SQL: one compiler for both dialects, whose differences are the driver's SqlDialect.
 * Every value is a parameter; the SQL text holds only the store's own names. Each comparison is two-valued (an
 * absent field makes it false, never NULL), so that `not` turns exactly the members it meets into those it does
 * not. co, sw and ew are written with position() and substr() rather than LIKE, so that a client's % and _ are
 * plain characters. The common lookups are written as the indexes are: lower(username), lower(email), id,
 * external_id and lower(display name shown) (the migrations' expression indexes).
 */
import type { MemberSearch, MemberSearchField, MemberSearchOperator, MemberValueList, RoleSearchField, SearchFilter } from '../store.js';
import type { SqlDialect } from './driver.js';
import type { FlagCodec } from './records.js';

type FieldType = 'text' | 'number' | 'flag';

interface FieldSql {
  sql: string;
  type: FieldType;
}

/** The alias of a value in anyValue's subquery. */
const ELEMENT = 'member_value';
/** Where each list is in the member's attributes. */
const LISTS: Record<MemberValueList, readonly string[]> = { roles: ['roles'], phoneNumbers: ['profile', 'phoneNumbers'], addresses: ['profile', 'addresses'] };

/** The full name as written, else the names joined (src/provisioning/resource.ts shows the same). */
const FULL_NAME = `COALESCE(members.formatted_name, CASE WHEN members.first_name = '' THEN members.last_name WHEN members.last_name = '' THEN members.first_name ELSE members.first_name || ' ' || members.last_name END)`;

const COLUMNS: Partial<Record<MemberSearchField, FieldSql>> = {
  id: { sql: 'members.id', type: 'text' },
  externalId: { sql: 'members.external_id', type: 'text' },
  username: { sql: 'members.username', type: 'text' },
  email: { sql: 'members.email', type: 'text' },
  firstName: { sql: 'members.first_name', type: 'text' },
  lastName: { sql: 'members.last_name', type: 'text' },
  fullName: { sql: FULL_NAME, type: 'text' },
  shownName: { sql: `COALESCE(members.display_name, ${FULL_NAME})`, type: 'text' },
  enabled: { sql: 'members.enabled', type: 'flag' },
  createdAt: { sql: 'members.created_at', type: 'number' },
  updatedAt: { sql: 'members.updated_at', type: 'number' },
};

const ATTRIBUTE_TEXTS: ReadonlySet<MemberSearchField> = new Set(['contactNumber', 'labelName', 'organisationId', 'organisationName', 'priceLevelId', 'priceLevelName']);
const PROFILE_TEXTS: ReadonlySet<MemberSearchField> = new Set(['title', 'preferredLanguage', 'locale', 'timezone', 'employeeNumber', 'organization', 'department']);
/** Thrown for a filter the store's type allows but the compiler cannot mean (a value's field outside anyValue…). */
export class MemberFilterError extends Error {}

/** The statement's parameters, numbered in order from `first`. */
class Parameters {
  readonly values: unknown[] = [];

  add(value: unknown, cast: 'TEXT' | 'BIGINT' | 'BOOLEAN'): string {
    this.values.push(value);
    return `CAST($${this.values.length} AS ${cast})`;
  }
}

const ORDERINGS: Partial<Record<MemberSearchOperator, string>> = { gt: '>', ge: '>=', lt: '<', le: '<=' };

/** The SQL of a field; `inElement` inside anyValue's subquery. */
type FieldResolver<Field extends string> = (field: Field, inElement: boolean) => FieldSql;

/** The members' fields, in the statement `FROM members`. */
function memberFields(dialect: SqlDialect): FieldResolver<MemberSearchField> {
  return (field, inElement) => {
    const column = COLUMNS[field];
    if (column !== undefined) return column;
    if (field === 'isMember') return { sql: dialect.jsonFlag('members.attributes', 'isMember'), type: 'flag' };
    if (ATTRIBUTE_TEXTS.has(field)) return { sql: dialect.jsonText('members.attributes', [field]), type: 'text' };
    if (PROFILE_TEXTS.has(field)) return { sql: dialect.jsonText('members.attributes', ['profile', field]), type: 'text' };
    if (!field.startsWith('element.') || !inElement) throw new MemberFilterError(`${field} is compared inside anyValue only`);
    const key = field.slice('element.'.length);
    return key === 'primary' ? { sql: dialect.elementFlag(ELEMENT, key), type: 'flag' } : { sql: dialect.elementText(ELEMENT, key), type: 'text' };
  };
}

const ROLE_COLUMNS: Record<RoleSearchField, FieldSql> = {
  id: { sql: 'role_rows.id', type: 'text' },
  name: { sql: 'role_rows.name', type: 'text' },
  externalId: { sql: 'role_rows.external_id', type: 'text' },
  createdAt: { sql: 'role_rows.created_at', type: 'number' },
  updatedAt: { sql: 'role_rows.updated_at', type: 'number' },
};

class Compiler<Field extends string> {
  readonly parameters = new Parameters();
  #inElement = false;

  constructor(
    private readonly dialect: SqlDialect,
    private readonly flags: FlagCodec,
    private readonly resolve: FieldResolver<Field>,
    /** Whether anyValue may be compiled: in a member search. */
    private readonly membersHaveLists: boolean,
  ) {}

  field(field: Field): FieldSql {
    return this.resolve(field, this.#inElement);
  }

  /** Whether the field has a value: texts stored empty have none. */
  present({ sql, type }: FieldSql): string {
    return type === 'text' ? `(${sql} IS NOT NULL AND ${sql} <> '')` : `${sql} IS NOT NULL`;
  }

  /** The comparison alone, for a field that has a value. */
  #comparison(field: FieldSql, operator: Exclude<MemberSearchOperator, 'ne'>, value: string | number | boolean, caseExact: boolean): string {
    if (field.type === 'flag') {
      if (operator !== 'eq' || typeof value !== 'boolean') throw new MemberFilterError('a flag is compared with eq or ne and true or false');
      return `${field.sql} = ${this.parameters.add(this.flags.fromBoolean(value), 'BOOLEAN')}`;
    }
    if (field.type === 'number') {
      const ordering = operator === 'eq' ? '=' : ORDERINGS[operator];
      if (ordering === undefined || typeof value !== 'number') throw new MemberFilterError('a time is compared with eq, ne, gt, ge, lt or le and a number');
      return `${field.sql} ${ordering} ${this.parameters.add(value, 'BIGINT')}`;
    }
    if (typeof value !== 'string') throw new MemberFilterError('a text is compared with a text');
    const left = caseExact ? field.sql : `lower(${field.sql})`;
    const parameter = this.parameters.add(value, 'TEXT');
    const right = caseExact ? parameter : `lower(${parameter})`;
    switch (operator) {
      case 'eq':
        return `${left} = ${right}`;
      case 'co':
        return `${this.dialect.position(left, right)} > 0`;
      case 'sw':
        return `substr(${left}, 1, length(${right})) = ${right}`;
      case 'ew':
        return `length(${left}) >= length(${right}) AND substr(${left}, length(${left}) - length(${right}) + 1) = ${right}`;
      default:
        return `${this.dialect.byCodePoint(left)} ${ORDERINGS[operator] as string} ${right}`;
    }
  }

  filter(filter: SearchFilter<Field>): string {
    switch (filter.kind) {
      case 'constant':
        return filter.value ? '1 = 1' : '1 = 0';
      case 'present':
        return this.present(this.field(filter.field));
      case 'compare': {
        const field = this.field(filter.field);
        const { operator, value, caseExact } = filter;
        const equal = `(${this.present(field)} AND ${this.#comparison(field, operator === 'ne' ? 'eq' : operator, value, caseExact)})`;
        return operator === 'ne' ? `NOT ${equal}` : equal;
      }
      case 'and':
      case 'or':
        if (filter.filters.length === 0) return filter.kind === 'and' ? '1 = 1' : '1 = 0';
        return `(${filter.filters.map((inner) => this.filter(inner)).join(` ${filter.kind.toUpperCase()} `)})`;
      case 'not':
        return `NOT (${this.filter(filter.filter)})`;
      case 'anyValue': {
        if (this.#inElement || !this.membersHaveLists) throw new MemberFilterError('anyValue is a filter of members, and cannot hold another');
        this.#inElement = true;
        const inner = this.filter(filter.filter);
        this.#inElement = false;
        return `EXISTS (SELECT 1 FROM ${this.dialect.jsonElements('members.attributes', LISTS[filter.list], ELEMENT)} WHERE ${inner})`;
      }
    }
  }
}

export interface CompiledSearch {
  /** `WHERE …`, or '' for every member. */
  where: string;
  /** `ORDER BY …`, ending with creation and id so that pages stay put. */
  orderBy: string;
  values: unknown[];
}

/** The WHERE and ORDER BY of a member search, with their parameters ($1 on); LIMIT and OFFSET are the caller's to add. */
export function compileSearch(search: Pick<MemberSearch, 'filter' | 'sort'>, dialect: SqlDialect, flags: FlagCodec): CompiledSearch {
  const compiler = new Compiler(dialect, flags, memberFields(dialect), true);
  const where = search.filter === undefined ? '' : `WHERE ${compiler.filter(search.filter)}`;
  const { sort } = search;
  let orderBy = 'ORDER BY members.created_at, members.id';
  if (sort !== undefined) {
    const field = compiler.field(sort.field);
    const key = field.type === 'text' ? dialect.byCodePoint(sort.caseExact ? field.sql : `lower(${field.sql})`) : field.sql;
    const direction = sort.descending ? 'DESC' : 'ASC';
    orderBy = `ORDER BY CASE WHEN ${compiler.present(field)} THEN 0 ELSE 1 END, ${key} ${direction}, members.created_at, members.id`;
  }
  return { where, orderBy, values: compiler.parameters.values };
}

/** The WHERE of a role search over `role_rows` (src/store/sql/roles.ts), with its parameters ($1 on). */
export function compileRoleFilter(filter: SearchFilter<RoleSearchField> | undefined, dialect: SqlDialect, flags: FlagCodec): { where: string; values: unknown[] } {
  const compiler = new Compiler<RoleSearchField>(dialect, flags, (field) => ROLE_COLUMNS[field], false);
  const where = filter === undefined ? '' : `WHERE ${compiler.filter(filter)}`;
  return { where, values: compiler.parameters.values };
}
