import { hash as argon2Hash } from '@node-rs/argon2';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { createServices, type Services } from '../../src/service/index.js';
import { importMembers } from '../../src/service/member-import.js';
import { verifyPassword } from '../../src/service/passwords.js';
import type { Store } from '../../src/store/store.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { tempSqliteStore } from '../helpers/temp-store.js';

const SESSION = { absoluteTimeoutSeconds: 3600, idleTimeoutSeconds: 600, slidingIdle: true };
const HEADER = 'id,username,email,first_name,last_name,password_hash,password_format,salt';

let store: Store;
let cleanup: () => Promise<void>;
let services: Services;

beforeEach(async () => {
  ({ store, cleanup } = await tempSqliteStore());
  services = createServices({ store, secretKey: randomBytes(32), session: SESSION });
});
afterEach(() => cleanup());

// The old passwords, and their hashes as the old stores would have exported them (computed here).
const SALT = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
const OLD = {
  sha1: 'sha1 password',
  hmac: 'hmac password',
  clear: ' clear, with a comma ',
  v2: 'identity v2 password',
  v3: 'identity v3 password',
  argon: 'argon2id password',
};
const b64 = (bytes: Buffer) => bytes.toString('base64');
const utf16le = (text: string) => Buffer.from(text, 'utf16le');
const SHA1 = b64(createHash('sha1').update(Buffer.concat([SALT, utf16le(OLD.sha1)])).digest());
const HMAC = b64(createHmac('sha256', Buffer.concat([SALT, SALT, SALT, SALT])).update(utf16le(OLD.hmac)).digest());
const V2 = b64(Buffer.concat([Buffer.from([0x00]), SALT, pbkdf2Sync(OLD.v2, SALT, 1000, 32, 'sha1')]));
const V3 = b64(
  Buffer.concat([
    Buffer.from([0x01, 0, 0, 0, 1, 0, 0, 0x27, 0x10, 0, 0, 0, 16]), // HMACSHA256, 10000 iterations, 16-byte salt
    SALT,
    pbkdf2Sync(OLD.v3, SALT, 10_000, 32, 'sha256'),
  ]),
);

async function csvOfEveryCase(): Promise<string> {
  const argon = await argon2Hash(OLD.argon, { memoryCost: 19456, timeCost: 2, parallelism: 1 });
  const s = b64(SALT);
  return [
    HEADER, // 1
    `m-sha1,sha1-user,sha1@example.org,Ada,Lovelace,${SHA1},1,${s}`, // 2
    `m-hmac,hmac-user,,Grace,Hopper,${HMAC},hashed,${s}`, // 3
    `m-clear,clear-user,,,,"${OLD.clear}",0,${s}`, // 4
    `m-v2,v2-user,,,,${V2},identity,`, // 5
    '', // 6
    `m-v3,v3-user,,,,${V3},Identity,`, // 7
    `m-argon,argon-user,,,,"${argon}",argon2id,`, // 8 (quoted: the PHC string has commas)
    'm-nopw,nopw-user,,,,,,', // 9
    ',no-id,,,,,,', // 10
    `m-bad64,bad64-user,,,,not*base64,1,${s}`, // 11
    'm-short,short-user', // 12
    `m-enc,enc-user,,"Mary`, // 13
    `Ann",,${SHA1},2,${s}`, // 14
    'm-sha1,other-user,,,,,,', // 15
    'm-dupname,hmac-user,,,,,,', // 16
    'existing,new-user,,,,,,', // 17
    `m-taken,existing-user,,,,clear text,clear,`, // 18
    'm-format,format-user,,,,abc,7,', // 19
    `m-noformat,noformat-user,,,,${SHA1},,${s}`, // 20
  ].join('\r\n');
}

const EXPECTED_REPORT = [
  { line: 2, id: 'm-sha1', status: 'imported' },
  { line: 3, id: 'm-hmac', status: 'imported' },
  { line: 4, id: 'm-clear', status: 'imported' },
  { line: 5, id: 'm-v2', status: 'imported' },
  { line: 7, id: 'm-v3', status: 'imported' },
  { line: 8, id: 'm-argon', status: 'imported' },
  { line: 9, id: 'm-nopw', status: 'imported' },
  { line: 10, id: null, status: 'refused', reason: 'The member record is not valid: id and username are required' },
  { line: 11, id: 'm-bad64', status: 'refused', reason: 'the hash is not valid base64' },
  { line: 12, id: 'm-short', status: 'refused', reason: 'the row has 2 fields where the header row has 8' },
  {
    line: 13,
    id: 'm-enc',
    status: 'refused',
    reason: 'encrypted passwords (PasswordFormat 2) cannot be imported: reset them or decrypt them with the old machine key first',
  },
  { line: 15, id: 'm-sha1', status: 'refused', reason: 'already exists in this file: line 2 has the same id' },
  { line: 16, id: 'm-dupname', status: 'refused', reason: 'already exists in this file: line 3 has the same username' },
  { line: 17, id: 'existing', status: 'refused', reason: 'A member with this id or username already exists: existing' },
  { line: 18, id: 'm-taken', status: 'refused', reason: 'A member with this id or username already exists: existing-user' },
  {
    line: 19,
    id: 'm-format',
    status: 'refused',
    reason: 'unknown password format "7": use 0 (clear), 1 (hashed), 2 (encrypted), identity or argon2id',
  },
  { line: 20, id: 'm-noformat', status: 'refused', reason: 'the password hash has no password format' },
];

const IMPORTED_IDS = ['m-argon', 'm-clear', 'm-hmac', 'm-nopw', 'm-sha1', 'm-v2', 'm-v3'];

async function addExisting(): Promise<void> {
  await services.members.add({ id: 'existing', username: 'existing-user' });
}

async function memberIds(): Promise<string[]> {
  return (await services.members.list()).map((m) => m.id).sort();
}

describe('importMembers', () => {
  it('reports every row, imports only the good ones and leaves nothing of a refused one', async () => {
    await addExisting();
    const report = await importMembers(await csvOfEveryCase(), services.members);
    expect(report).toEqual(EXPECTED_REPORT);
    expect(await memberIds()).toEqual(['existing', ...IMPORTED_IDS].sort());
    for (const id of ['m-bad64', 'm-short', 'm-enc', 'm-dupname', 'm-taken', 'm-format', 'm-noformat']) {
      await expect(store.getMember(id)).resolves.toBeNull();
    }
    await expect(store.getMemberCredentials('existing')).resolves.toMatchObject({
      member: { username: 'existing-user' },
      passwordHash: null,
    });
    await expect(services.members.get('m-sha1')).resolves.toMatchObject({
      username: 'sha1-user',
      email: 'sha1@example.org',
      firstName: 'Ada',
      lastName: 'Lovelace',
      enabled: true,
    });
  });

  it('lets every imported member sign in with the old password, and only with it', async () => {
    await importMembers(await csvOfEveryCase(), services.members);
    const cases = [
      ['m-sha1', OLD.sha1, true],
      ['m-hmac', OLD.hmac, true],
      ['m-clear', OLD.clear, false],
      ['m-v2', OLD.v2, true],
      ['m-v3', OLD.v3, true],
      ['m-argon', OLD.argon, false],
    ] as const;
    for (const [id, password, legacy] of cases) {
      const credentials = await store.getMemberCredentials(id);
      const stored = credentials?.passwordHash ?? '';
      await expect(verifyPassword(stored, password)).resolves.toEqual({ ok: true, needsRehash: legacy });
      await expect(verifyPassword(stored, `${password}!`)).resolves.toEqual({ ok: false, needsRehash: false });
    }
    // Clear passwords are never stored as they are.
    expect((await store.getMemberCredentials('m-clear'))?.passwordHash).toMatch(/^\$argon2id\$/);
    await expect(store.getMemberCredentials('m-nopw')).resolves.toMatchObject({ passwordHash: null });
  });

  it('imports nothing the second time', async () => {
    await addExisting();
    const csv = await csvOfEveryCase();
    await importMembers(csv, services.members);
    const before = await memberIds();
    const again = await importMembers(csv, services.members);
    expect(again).toEqual(
      EXPECTED_REPORT.map((row) =>
        row.status === 'imported'
          ? { ...row, status: 'refused', reason: `A member with this id or username already exists: ${row.id}` }
          : row,
      ),
    );
    expect(await memberIds()).toEqual(before);
  });

  it('takes the columns in any order and under common spellings', async () => {
    const csv = [
      'Password Format,PasswordSalt,Password,Last Name,First Name,E-mail,User Name,ID',
      `1,${b64(SALT)},${SHA1},Lovelace,Ada,ada@example.org,ada,m1`,
    ].join('\n');
    expect(await importMembers(csv, services.members)).toEqual([{ line: 2, id: 'm1', status: 'imported' }]);
    await expect(services.members.get('m1')).resolves.toMatchObject({
      username: 'ada',
      email: 'ada@example.org',
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
    const credentials = await store.getMemberCredentials('m1');
    await expect(verifyPassword(credentials?.passwordHash ?? '', OLD.sha1)).resolves.toMatchObject({ ok: true });
  });

  it('takes the hash algorithm from the options when the length does not tell it', async () => {
    const sha256 = b64(createHash('sha256').update(Buffer.concat([SALT, utf16le(OLD.sha1)])).digest());
    const csv = `${HEADER}\nm1,ada,,,,${sha256},1,${b64(SALT)}\n`;
    expect(await importMembers(csv, services.members, { hashAlgorithm: 'SHA256' })).toEqual([{ line: 2, id: 'm1', status: 'imported' }]);
    const credentials = await store.getMemberCredentials('m1');
    await expect(verifyPassword(credentials?.passwordHash ?? '', OLD.sha1)).resolves.toMatchObject({ ok: true });
  });

  it('reports nothing for a file with a header only', async () => {
    await expect(importMembers(`\uFEFF${HEADER}\r\n\r\n`, services.members)).resolves.toEqual([]);
  });

  it.each([
    ['an empty file', '', `the file is empty: its first row is the header ${HEADER}`],
    [
      'no header row',
      'm1,ada,,,,,,',
      `unknown column "m1": the header row is ${HEADER}, and may add is_member, contact_number, label_name, organisation_id, ` +
        'organisation_name, price_level_id, price_level_name, roles and attr:<key> columns',
    ],
    ['a header without username', 'id,email\nm1,a@example.org', `the header row has no username column: it is ${HEADER}`],
    ['a column named twice', 'id,username,Username\nm1,ada,ada', 'two columns of the header row are the username'],
    ['an attribute named twice', 'id,username,attr:tier,ATTR:tier\nm1,ada,a,b', 'two columns of the header row are attr:tier'],
    ['two spellings of one attribute', 'id,username,organisation_id,Organization ID\nm1,ada,a,b', 'two columns of the header row are the organisationId'],
    [
      'an attribute column with a bad name',
      'id,username,attr:price level\nm1,ada,x',
      'the column "attr:price level" names no valid attribute: after attr: come letters, digits, _, . and - (64 at most), starting with a letter or _',
    ],
  ])('refuses %s as a whole', async (_name, csv, detail) => {
    const error = await serviceErrorOf(importMembers(csv, services.members));
    expect(error.code).toBe('MEMBER_IMPORT_INVALID');
    expect(error.message).toBe(`The member file cannot be imported: ${detail}`);
  });

  it('refuses a file with a CSV syntax error before importing any row', async () => {
    const csv = `${HEADER}\nm1,ada,,,,,,\nm2,"bob"x,,,,,,\n`;
    const error = await serviceErrorOf(importMembers(csv, services.members));
    expect(error.code).toBe('MEMBER_IMPORT_INVALID');
    expect(error.message).toContain('line 3');
    expect(await memberIds()).toEqual([]);
  });
});

describe('importMembers with member attributes', () => {
  it('reads the optional columns under their spellings, and attr:<key> columns with the key as written', async () => {
    const csv = [
      'ID,User Name,Is Member,Contact-Number,label_name,Organization ID,organisation_name,PRICE_LEVEL_ID,Price Level Name,Roles,attr:Tier,Attr:region.code',
      'm1,ada,Yes,+44 20 7946 0958,Gold,org-1,"The Society, Ltd",pl-1,Members,r1:Editor|r2:Chief: Editor,gold,ÎDF',
      'm2,bob,0,,,,,,,,,',
      'm3,cy,,,,,,,,,,',
    ].join('\n');
    expect(await importMembers(csv, services.members)).toEqual([
      { line: 2, id: 'm1', status: 'imported' },
      { line: 3, id: 'm2', status: 'imported' },
      { line: 4, id: 'm3', status: 'imported' },
    ]);
    expect((await services.members.get('m1')).attributes).toStrictEqual({
      isMember: true,
      contactNumber: '+44 20 7946 0958',
      labelName: 'Gold',
      organisationId: 'org-1',
      organisationName: 'The Society, Ltd',
      priceLevelId: 'pl-1',
      priceLevelName: 'Members',
      roles: [
        { id: 'r1', name: 'Editor' },
        { id: 'r2', name: 'Chief: Editor' },
      ],
      extra: { Tier: 'gold', 'region.code': 'ÎDF' },
    });
    expect((await services.members.get('m2')).attributes).toStrictEqual({ isMember: false });
    expect((await services.members.get('m3')).attributes).toStrictEqual({});
  });

  it.each([
    ['true', true],
    ['FALSE', false],
    ['1', true],
    ['no', false],
    [' yes ', true],
  ])('reads the member column %j as %j', async (cell, isMember) => {
    expect(await importMembers(`id,username,member\nm1,ada,${cell}`, services.members)).toEqual([{ line: 2, id: 'm1', status: 'imported' }]);
    expect((await services.members.get('m1')).attributes).toStrictEqual({ isMember });
  });

  it('refuses a row with a bad attribute, with the reason, and imports the rows around it', async () => {
    const csv = [
      'id,username,is_member,contact_number,roles,attr:tier',
      'm1,ada,yes,,,',
      'm2,bob,maybe,,,',
      'm3,cy,,,admin,',
      'm4,di,,,r1:A||r2:B,',
      'm5,ed,,,r1:A|r1:B,',
      `m6,flo,,${'9'.repeat(257)},,`,
      `m7,gus,,,,${'x'.repeat(1025)}`,
      'm8,hal,no,,r1:A,silver',
    ].join('\n');
    expect(await importMembers(csv, services.members)).toEqual([
      { line: 2, id: 'm1', status: 'imported' },
      { line: 3, id: 'm2', status: 'refused', reason: 'is_member "maybe" is not one of true, false, 1, 0, yes or no' },
      { line: 4, id: 'm3', status: 'refused', reason: 'the role "admin" is not id:name (roles are id:name pairs separated by |)' },
      { line: 5, id: 'm4', status: 'refused', reason: 'the role "" is not id:name (roles are id:name pairs separated by |)' },
      { line: 6, id: 'm5', status: 'refused', reason: 'The member record is not valid: two roles have the id "r1"' },
      { line: 7, id: 'm6', status: 'refused', reason: 'The member record is not valid: contactNumber is longer than 256 characters' },
      { line: 8, id: 'm7', status: 'refused', reason: 'The member record is not valid: the extra attribute "tier" is longer than 1024 characters' },
      { line: 9, id: 'm8', status: 'imported' },
    ]);
    expect(await memberIds()).toEqual(['m1', 'm8']);
    expect((await services.members.get('m8')).attributes).toStrictEqual({ isMember: false, roles: [{ id: 'r1', name: 'A' }], extra: { tier: 'silver' } });
  });

  it("reports the ids as stored under the 'guid' id format: lower-cased, or issued for an empty cell", async () => {
    services = createServices({ store, secretKey: randomBytes(32), session: SESSION, memberIdFormat: 'guid' });
    const csv = ['id,username', '0F8FAD5B-D9CB-469F-A165-70867728950E,ada', ',bob', 'member-42,cy'].join('\n');
    const report = await importMembers(csv, services.members);
    expect(report).toEqual([
      { line: 2, id: '0f8fad5b-d9cb-469f-a165-70867728950e', status: 'imported' },
      { line: 3, id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/), status: 'imported' },
      {
        line: 4,
        id: 'member-42',
        status: 'refused',
        reason: 'The member record is not valid: the id is not a GUID (8-4-4-4-12 hex digits, no braces)',
      },
    ]);
    await expect(services.members.get(report[1]?.id ?? '')).resolves.toMatchObject({ username: 'bob' });
  });
});
