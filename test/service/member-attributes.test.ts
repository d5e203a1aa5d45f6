import { validateAttributes } from '../../src/service/member-attributes.js';
import type { MemberAttributes } from '../../src/store/store.js';

function reasonOf(input: MemberAttributes): string {
  try {
    validateAttributes(input);
  } catch (error) {
    expect(error).toMatchObject({ name: 'ServiceError', code: 'MEMBER_INVALID' });
    return (error as Error).message.replace('The member record is not valid: ', '');
  }
  throw new Error('the attributes were accepted');
}

const roles = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `r${i}`, name: `Role ${i}` }));
const extra = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`key${i}`, `value ${i}`]));

describe('validateAttributes', () => {
  it('keeps every kind of attribute, texts trimmed', () => {
    expect(
      validateAttributes({
        isMember: false,
        contactNumber: ' +44 20 7946 0958 ',
        labelName: 'Zoë',
        organisationId: 'org-1',
        organisationName: '\tThe Society\n',
        priceLevelId: 'pl-1',
        priceLevelName: 'Members',
        roles: [{ id: ' r1 ', name: ' Editor ' }],
        extra: { tier: ' gold ', 'a.b-c_d': 'x' },
      }),
    ).toStrictEqual({
      isMember: false,
      contactNumber: '+44 20 7946 0958',
      labelName: 'Zoë',
      organisationId: 'org-1',
      organisationName: 'The Society',
      priceLevelId: 'pl-1',
      priceLevelName: 'Members',
      roles: [{ id: 'r1', name: 'Editor' }],
      extra: { tier: 'gold', 'a.b-c_d': 'x' },
    });
  });

  it('leaves out what is empty or undefined, so that the result has no undefined-valued key', () => {
    const result = validateAttributes({
      isMember: undefined,
      contactNumber: '   ',
      labelName: '',
      organisationId: undefined,
      roles: [],
      extra: { blank: ' ' },
    });
    expect(result).toStrictEqual({});
    expect(Object.keys(result)).toEqual([]);
    expect(validateAttributes({})).toStrictEqual({});
    expect(validateAttributes({ isMember: true, extra: { kept: 'v', blank: '' } })).toStrictEqual({ isMember: true, extra: { kept: 'v' } });
  });

  it('drops keys it does not know', () => {
    expect(validateAttributes({ labelName: 'x', other: 'y' } as MemberAttributes)).toStrictEqual({ labelName: 'x' });
  });

  it('takes texts of 256 characters and refuses longer ones, by their name', () => {
    expect(validateAttributes({ labelName: 'x'.repeat(256) }).labelName).toHaveLength(256);
    expect(reasonOf({ labelName: 'x'.repeat(257) })).toBe('labelName is longer than 256 characters');
    expect(reasonOf({ priceLevelName: 'é'.repeat(257) })).toBe('priceLevelName is longer than 256 characters');
  });

  it('takes 100 roles and refuses 101', () => {
    expect(validateAttributes({ roles: roles(100) }).roles).toHaveLength(100);
    expect(reasonOf({ roles: roles(101) })).toBe('a member has at most 100 roles');
  });

  it('refuses a role without an id or a name, with a long one, and two with one id', () => {
    expect(reasonOf({ roles: [{ id: 'r1', name: 'A' }, { id: ' ', name: 'B' }] })).toBe('role 2 needs an id and a name');
    expect(reasonOf({ roles: [{ id: 'r1', name: '' }] })).toBe('role 1 needs an id and a name');
    expect(reasonOf({ roles: [{ id: 'r'.repeat(257), name: 'A' }] })).toBe("role 1's id is longer than 256 characters");
    expect(reasonOf({ roles: [{ id: 'r1', name: 'n'.repeat(257) }] })).toBe("role 1's name is longer than 256 characters");
    expect(reasonOf({ roles: [{ id: 'r1', name: 'A' }, { id: ' r1', name: 'B' }] })).toBe('two roles have the id "r1"');
  });

  it('takes role ids that differ in case as different', () => {
    expect(validateAttributes({ roles: [{ id: 'r1', name: 'A' }, { id: 'R1', name: 'B' }] }).roles).toHaveLength(2);
  });

  it('takes 50 extra attributes and refuses 51', () => {
    expect(Object.keys(validateAttributes({ extra: extra(50) }).extra ?? {})).toHaveLength(50);
    expect(reasonOf({ extra: extra(51) })).toBe('a member has at most 50 extra attributes');
  });

  it.each(['', '1abc', 'a b', 'a:b', 'ключ', '-a', `a${'b'.repeat(64)}`])('refuses the extra attribute name %j', (key) => {
    expect(reasonOf({ extra: { [key]: 'v' } })).toBe(
      `the extra attribute "${key}" needs a name of letters, digits, _, . and - (64 at most) that starts with a letter or _`,
    );
  });

  it.each(['a', '_', 'A.b-c_9', `a${'b'.repeat(63)}`])('takes the extra attribute name %j', (key) => {
    expect(validateAttributes({ extra: { [key]: 'v' } }).extra).toStrictEqual({ [key]: 'v' });
  });

  it('takes extra values of 1024 characters and refuses longer ones', () => {
    expect(validateAttributes({ extra: { k: 'v'.repeat(1024) } }).extra?.k).toHaveLength(1024);
    expect(reasonOf({ extra: { k: 'v'.repeat(1025) } })).toBe('the extra attribute "k" is longer than 1024 characters');
  });
});
