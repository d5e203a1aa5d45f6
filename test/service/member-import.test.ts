import { hash as argon2Hash } from '@node-rs/argon2';
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import type { Services } from '../../src/service/index.js';
import {
  importMemberFile,
  type FileImportOptions,
  type ImportProgress,
  type ImportReportRow,
  type ImportSummary,
  type MissingMember,
} from '../../src/service/member-import.js';
import type { MemberService } from '../../src/service/members.js';
import { verifyPassword } from '../../src/service/passwords.js';
import type { Store } from '../../src/store/store.js';
import { b64, utf16le } from '../helpers/legacy-hashes.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { describeWithPostgres, tempPostgresStore } from '../helpers/postgres.js';
import { servicesOver, tempServices } from '../helpers/test-services.js';

const HEADER = 'id,username,email,first_name,last_name,password_hash,password_format,salt';

/** importMemberFile over a text in memory, with the report of every data row. */
async function importMembers(csvText: string, members: MemberService, options: FileImportOptions = {}): Promise<ImportReportRow[]> {
  const report: ImportReportRow[] = [];
  await importMemberFile(() => [Buffer.from(csvText)], members, { ...options, onRow: (row) => void report.push(row) });
  return report;
}

let store: Store;
let cleanup: () => Promise<void>;
let services: Services;

beforeEach(async () => {
  ({ store, services, cleanup } = await tempServices());
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

  it('imports nothing the second time: the rows imported are there already, the others refused as before', async () => {
    await addExisting();
    const csv = await csvOfEveryCase();
    await importMembers(csv, services.members);
    const before = await memberIds();
    const again = await importMembers(csv, services.members);
    expect(again).toEqual(EXPECTED_REPORT.map((row) => (row.status === 'imported' ? { ...row, status: 'existing' } : row)));
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
        'organisation_name, price_level_id, price_level_name, roles, enabled and attr:<key> columns',
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
    services = servicesOver(store, { memberIdFormat: 'guid' });
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

/** The member service with some methods replaced; the others run on the service itself (it has private fields). */
function replacing(members: MemberService, methods: Partial<MemberService>): MemberService {
  return new Proxy(members, {
    get(target, property, receiver) {
      if (property in methods) return methods[property as keyof MemberService];
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The member service, with the batches it was given to write (their ids' numbers) and the ids it was asked for. */
function countingMembers(members: MemberService): { members: MemberService; batches: number[][]; finds: string[] } {
  const batches: number[][] = [];
  const finds: string[] = [];
  const counting = replacing(members, {
    addMany: (list) => {
      batches.push(list.map((member) => Number(member.id.replace(/\D/g, ''))));
      return members.addMany(list);
    },
    find: (id) => {
      finds.push(id);
      return members.find(id);
    },
  });
  return { members: counting, batches, finds };
}

/** The summary's counts of the update and disableMissing options, which an import without them leaves at zero. */
const NO_UPDATES = { updated: 0, unchanged: 0, disabled: 0, notDisabledBecause: null };

function rowsCsv(count: number, row = (n: number) => `m${n},user${n},user${n}@example.org,First ${n},Last ${n}`): string {
  return ['id,username,email,first_name,last_name', ...Array.from({ length: count }, (_, index) => row(index + 1))].join('\n');
}

describe('importMemberFile', () => {
  it('writes the rows in batches of batchSize, in file order, and reports progress after each', async () => {
    const { members, batches } = countingMembers(services.members);
    const progress: ImportProgress[] = [];
    const summary = await importMemberFile(() => [Buffer.from(rowsCsv(25))], members, { batchSize: 10, onProgress: (p) => progress.push(p) });
    expect(summary).toEqual({ rowsTotal: 25, rowsDone: 25, imported: 25, existing: 0, refused: 0, interrupted: false, ...NO_UPDATES });
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
    expect(batches.flat()).toEqual(Array.from({ length: 25 }, (_, index) => index + 1));
    expect(progress.map((p) => p.rowsDone)).toEqual([10, 20, 25]);
    expect((await services.members.list()).length).toBe(25);
  });

  it("writes a batch once it is a second old on the services' clock", async () => {
    let now = Date.UTC(2026, 0, 1);
    // Every reading of this clock is a second after the one before: a batch is a second old once it has a row.
    services = servicesOver(store, { clock: () => (now += 1000) });
    const { members, batches } = countingMembers(services.members);
    const progress: ImportProgress[] = [];
    await importMemberFile(() => [Buffer.from(rowsCsv(3))], members, { onProgress: (p) => progress.push(p) });
    expect(batches).toEqual([[1], [2], [3]]);
    expect(progress.map((p) => p.rowsDone)).toEqual([1, 2, 3]);
  });

  it("dates the members imported by the services' clock", async () => {
    const at = Date.UTC(2001, 8, 9);
    services = servicesOver(store, { clock: () => at });
    await importMemberFile(() => [Buffer.from(rowsCsv(2))], services.members);
    expect((await services.members.list()).map((member) => member.createdAt)).toEqual([at, at]);
  });

  it('stops after the batch in progress when the signal aborts, and a second run imports only what is missing', async () => {
    const csv = rowsCsv(50);
    const controller = new AbortController();
    const first = await importMemberFile(() => [Buffer.from(csv)], services.members, {
      batchSize: 10,
      onProgress: (p) => p.rowsDone >= 20 && controller.abort(),
      signal: controller.signal,
    });
    expect(first).toEqual({ rowsTotal: 50, rowsDone: 20, imported: 20, existing: 0, refused: 0, interrupted: true, ...NO_UPDATES });
    expect(await memberIds()).toHaveLength(20);

    const second = await importMembers(csv, services.members, { batchSize: 10 });
    expect(second.filter((row) => row.status === 'existing').map((row) => row.line)).toEqual(Array.from({ length: 20 }, (_, index) => index + 2));
    expect(second.filter((row) => row.status === 'imported')).toHaveLength(30);
    expect(second.filter((row) => row.status === 'refused')).toEqual([]);
    const ids = await memberIds();
    expect(ids).toHaveLength(50);
    expect(new Set(ids).size).toBe(50);
  });

  it('resumes after a run that died between batches: the rows written are there, the rest imported', async () => {
    const csv = rowsCsv(30);
    let calls = 0;
    const dying = replacing(services.members, {
      addMany: (list) => (++calls === 2 ? Promise.reject(new Error('connection lost')) : services.members.addMany(list)),
    });
    await expect(importMembers(csv, dying, { batchSize: 10 })).rejects.toThrow('connection lost');
    expect(await memberIds()).toHaveLength(10);
    const report = await importMembers(csv, services.members, { batchSize: 7 });
    expect(report.map((row) => row.status)).toEqual([...Array(10).fill('existing'), ...Array(20).fill('imported')]);
    expect(await memberIds()).toHaveLength(30);
  });

  it('hashes no clear password of a row already imported, and refuses one whose id is another member', async () => {
    const csv = [HEADER, 'm1,ada,,,,first password,0,', 'm2,bob,,,,second password,clear,', 'm3,cy,,,,third password,clear,'].join('\n');
    await importMembers(csv, services.members);
    await services.members.remove('m3');
    await services.members.add({ id: 'm3', username: 'someone-else' });
    const { members, batches, finds } = countingMembers(services.members);
    const report = await importMembers(csv, members);
    expect(report).toEqual([
      { line: 2, id: 'm1', status: 'existing' },
      { line: 3, id: 'm2', status: 'existing' },
      { line: 4, id: 'm3', status: 'refused', reason: 'A member with this id or username already exists: m3' },
    ]);
    expect(finds).toEqual(['m1', 'm2', 'm3']);
    expect(batches).toEqual([]);
    await expect(verifyPassword((await store.getMemberCredentials('m1'))?.passwordHash ?? '', 'first password')).resolves.toMatchObject({ ok: true });
  });

  it('refuses a username repeated in the file in another case, and one taken by a stored member in another case', async () => {
    await services.members.add({ id: 'm0', username: 'Zed' });
    const report = await importMembers(['id,username', 'm1,Ada', 'm2,ada', 'm3,zed'].join('\n'), services.members);
    expect(report).toEqual([
      { line: 2, id: 'm1', status: 'imported' },
      { line: 3, id: 'm2', status: 'refused', reason: 'already exists in this file: line 2 has the same username' },
      { line: 4, id: 'm3', status: 'refused', reason: 'A member with this id or username already exists: zed' },
    ]);
  });

  it("reports a row without id under the 'guid' id format as there already the second time, with the id issued the first", async () => {
    services = servicesOver(store, { memberIdFormat: 'guid' });
    const csv = ['id,username', ',bob'].join('\n');
    const [first] = await importMembers(csv, services.members);
    expect(first).toMatchObject({ status: 'imported' });
    expect(await importMembers(csv, services.members)).toEqual([{ line: 2, id: first?.id, status: 'existing' }]);
    expect(await memberIds()).toEqual([first?.id]);
  });

  it('reads UTF-16 and CRLF files whatever the chunks the bytes come in', async () => {
    const text = `${['id,username,first_name', 'm1,ada,Zoë', '', 'm2,"bob', 'smith",Łukasz 日本', 'm3,cy,🎓'].join('\r\n')}\r\n`;
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    // One byte a chunk splits every character and every CRLF.
    const chunks = [...bytes].map((byte) => Buffer.from([byte]));
    const report: unknown[] = [];
    await importMemberFile(() => chunks, services.members, { onRow: (row) => void report.push(row) });
    expect(report).toEqual([
      { line: 2, id: 'm1', status: 'imported' },
      { line: 4, id: 'm2', status: 'imported' },
      { line: 6, id: 'm3', status: 'imported' },
    ]);
    expect((await services.members.get('m1')).firstName).toBe('Zoë');
    expect((await services.members.get('m2')).username).toBe('bob\nsmith');
    expect((await services.members.get('m2')).firstName).toBe('Łukasz 日本');
    expect((await services.members.get('m3')).firstName).toBe('🎓');
  });

  it('refuses a file with a quote left open before importing anything, without reading the rest into one field', async () => {
    const csv = `id,username\nm1,ada\nm2,"bob\n${'m9,x\n'.repeat(250_000)}`;
    const error = await serviceErrorOf(importMembers(csv, services.members));
    expect(error.code).toBe('MEMBER_IMPORT_INVALID');
    expect(error.message).toMatch(/maximum/i);
    expect(await memberIds()).toEqual([]);
  });
});

/** Every member with its password hash, as the store holds them: to tell that nothing was written. */
async function storedState(over: Store): Promise<unknown[]> {
  return Promise.all((await over.listMembers()).map((member) => over.getMemberCredentials(member.id)));
}

/** importMemberFile over a text, with the report of every row and the members disabled. */
async function importCollecting(
  csv: string,
  members: MemberService,
  options: FileImportOptions = {},
): Promise<{ summary: ImportSummary; report: ImportReportRow[]; disabled: MissingMember[] }> {
  const report: ImportReportRow[] = [];
  const disabled: MissingMember[] = [];
  const summary = await importMemberFile(() => [Buffer.from(csv)], members, {
    ...options,
    onRow: (row) => void report.push(row),
    onDisabled: (member) => void disabled.push(member),
  });
  return { summary, report, disabled };
}

const ADA = {
  id: 'm1',
  username: 'ada',
  email: 'ada@example.org',
  firstName: 'Ada',
  lastName: 'Lovelace',
  attributes: { isMember: true, labelName: 'Gold', roles: [{ id: 'r1', name: 'Reader' }], extra: { tier: 'gold', region: 'north' } },
};

describe('importMembers with update', () => {
  it('changes only the columns the file has, reports which, and finds nothing to change the second time', async () => {
    await services.members.add(ADA);
    const csv = ['id,username,email,is_member,attr:tier', 'm1,ada,ada@example.net,no,silver'].join('\n');
    expect(await importMembers(csv, services.members)).toEqual([{ line: 2, id: 'm1', status: 'existing' }]);
    await expect(services.members.get('m1')).resolves.toMatchObject({ email: 'ada@example.org', attributes: ADA.attributes });

    expect(await importMembers(csv, services.members, { update: true })).toEqual([
      { line: 2, id: 'm1', status: 'updated', fields: ['email', 'is_member', 'attr:tier'] },
    ]);
    const updated = await services.members.get('m1');
    expect(updated).toMatchObject({ username: 'ada', email: 'ada@example.net', firstName: 'Ada', lastName: 'Lovelace', enabled: true });
    expect(updated.attributes).toStrictEqual({
      isMember: false,
      labelName: 'Gold',
      roles: [{ id: 'r1', name: 'Reader' }],
      extra: { tier: 'silver', region: 'north' },
    });
    expect(await importMembers(csv, services.members, { update: true })).toEqual([{ line: 2, id: 'm1', status: 'unchanged' }]);
  });

  it('clears a field whose cell is empty in a column the file has', async () => {
    await services.members.add(ADA);
    const csv = ['id,username,first_name,label_name,roles,attr:region', 'm1,ada,,,,'].join('\n');
    expect(await importMembers(csv, services.members, { update: true })).toEqual([
      { line: 2, id: 'm1', status: 'updated', fields: ['first_name', 'label_name', 'roles', 'attr:region'] },
    ]);
    const updated = await services.members.get('m1');
    expect(updated).toMatchObject({ firstName: '', lastName: 'Lovelace', email: 'ada@example.org' });
    expect(updated.attributes).toStrictEqual({ isMember: true, extra: { tier: 'gold' } });
  });

  it('refuses a row whose id is stored under another username, and leaves that member as it is', async () => {
    await services.members.add(ADA);
    const csv = ['id,username,email', 'm1,ada.lovelace,new@example.org', 'm2,bob,bob@example.org'].join('\n');
    expect(await importMembers(csv, services.members, { update: true })).toEqual([
      { line: 2, id: 'm1', status: 'refused', reason: 'member m1 is stored with another username, and an import does not change usernames' },
      { line: 3, id: 'm2', status: 'imported' },
    ]);
    await expect(services.members.get('m1')).resolves.toMatchObject({ username: 'ada', email: 'ada@example.org' });
  });

  it("keeps a stored member's password whatever the file's password cells", async () => {
    const s = b64(SALT);
    await importMembers([HEADER, `m1,ada,,,,${SHA1},1,${s}`, 'm2,bob,,,,,,'].join('\n'), services.members);
    await services.members.setPassword('m2', 'changed on the account page');
    const csv = [HEADER, `m1,ada,ada@example.org,,,${HMAC},1,${s}`, 'm2,bob,,,,bob clear password,0,', 'm3,cy,,,,cy clear password,0,'].join('\n');
    const hashBefore = (await store.getMemberCredentials('m2'))?.passwordHash;
    expect(await importMembers(csv, services.members, { update: true })).toEqual([
      { line: 2, id: 'm1', status: 'updated', fields: ['email'] },
      { line: 3, id: 'm2', status: 'unchanged' },
      { line: 4, id: 'm3', status: 'imported' },
    ]);
    await expect(verifyPassword((await store.getMemberCredentials('m1'))?.passwordHash ?? '', OLD.sha1)).resolves.toMatchObject({ ok: true });
    expect((await store.getMemberCredentials('m2'))?.passwordHash).toBe(hashBefore);
    await expect(verifyPassword((await store.getMemberCredentials('m3'))?.passwordHash ?? '', 'cy clear password')).resolves.toMatchObject({ ok: true });
  });

  it('sets enabled from an enabled column, leaves it on an empty cell, and leaves it without the column', async () => {
    for (const [id, username] of [['m1', 'ada'], ['m2', 'bob'], ['m3', 'cy']] as const) await services.members.add({ id, username });
    await services.members.setEnabled('m2', false);
    await services.members.setEnabled('m3', false);
    const csv = ['id,username,IsApproved', 'm1,ada,no', 'm2,bob,yes', 'm3,cy,', 'm4,dee,false', 'm5,eve,', 'm6,flo,maybe'].join('\n');
    expect(await importMembers(csv, services.members, { update: true })).toEqual([
      { line: 2, id: 'm1', status: 'updated', fields: ['enabled'] },
      { line: 3, id: 'm2', status: 'updated', fields: ['enabled'] },
      { line: 4, id: 'm3', status: 'unchanged' },
      { line: 5, id: 'm4', status: 'imported' },
      { line: 6, id: 'm5', status: 'imported' },
      { line: 7, id: 'm6', status: 'refused', reason: 'enabled "maybe" is not one of true, false, 1, 0, yes or no' },
    ]);
    const enabled = Object.fromEntries((await services.members.list()).map((member) => [member.id, member.enabled]));
    expect(enabled).toEqual({ m1: false, m2: true, m3: false, m4: false, m5: true });
    expect(await importMembers('id,username\nm3,cy', services.members, { update: true })).toEqual([{ line: 2, id: 'm3', status: 'unchanged' }]);
    await expect(services.members.get('m3')).resolves.toMatchObject({ enabled: false });
  });

  it("finds the member of a row without id by its username under the 'guid' id format", async () => {
    services = servicesOver(store, { memberIdFormat: 'guid' });
    const [first] = await importMembers('id,username,email\n,bob,bob@example.org', services.members);
    const report = await importMembers('id,username,email\n,bob,robert@example.org', services.members, { update: true });
    expect(report).toEqual([{ line: 2, id: first?.id, status: 'updated', fields: ['email'] }]);
    expect((await services.members.list()).map((member) => [member.id, member.email])).toEqual([[first?.id, 'robert@example.org']]);
  });

  it('finishes a run interrupted between batches: the rows updated before are unchanged, the others updated', async () => {
    await importMembers(rowsCsv(50), services.members);
    const changed = rowsCsv(50, (n) => `m${n},user${n},new${n}@example.org,First ${n},Last ${n}`);
    const controller = new AbortController();
    const first = await importMemberFile(() => [Buffer.from(changed)], services.members, {
      update: true,
      batchSize: 10,
      onProgress: (p) => p.rowsDone >= 20 && controller.abort(),
      signal: controller.signal,
    });
    expect(first).toMatchObject({ rowsDone: 20, updated: 20, unchanged: 0, interrupted: true });

    const updates: string[] = [];
    const counting = replacing(services.members, {
      update: (id, changes) => {
        updates.push(id);
        return services.members.update(id, changes);
      },
    });
    const second = await importMembers(changed, counting, { update: true, batchSize: 10 });
    expect(second.map((row) => row.status)).toEqual([...Array(20).fill('unchanged'), ...Array(30).fill('updated')]);
    expect(updates.sort()).toEqual(Array.from({ length: 30 }, (_, index) => `m${index + 21}`).sort());
    expect((await services.members.list()).every((member) => member.email === `new${member.id.slice(1)}@example.org`)).toBe(true);
  });

  it('finishes a run that died in the middle of a batch of updates: each change written once, none missed', async () => {
    await importMembers(rowsCsv(30), services.members);
    const changed = rowsCsv(30, (n) => `m${n},user${n},new${n}@example.org,First ${n},Last ${n}`);
    let calls = 0;
    const dying = replacing(services.members, {
      update: (id, changes) => (++calls === 15 ? Promise.reject(new Error('connection lost')) : services.members.update(id, changes)),
    });
    await expect(importMembers(changed, dying, { update: true, batchSize: 10 })).rejects.toThrow('connection lost');
    const written = (await services.members.list()).filter((member) => member.email.startsWith('new')).map((member) => member.id);
    expect(written.length).toBeGreaterThanOrEqual(10);
    expect(written.length).toBeLessThan(30);

    const report = await importMembers(changed, services.members, { update: true, batchSize: 7 });
    expect(report.filter((row) => row.status === 'unchanged').map((row) => row.id).sort()).toEqual(written.sort());
    expect(report.filter((row) => row.status === 'updated')).toHaveLength(30 - written.length);
    expect((await services.members.list()).every((member) => member.email === `new${member.id.slice(1)}@example.org`)).toBe(true);
  });
});

describe('importMemberFile with disableMissing', () => {
  it('disables the enabled members the file does not list, and not those added while it ran', async () => {
    let now = Date.UTC(2026, 0, 1);
    services = servicesOver(store, { clock: () => now });
    for (const [id, username] of [['m1', 'ada'], ['m2', 'bob'], ['m3', 'cy'], ['m4', 'dee']] as const) await services.members.add({ id, username });
    await services.members.setEnabled('m3', false);
    const { members } = services;
    const disabled: MissingMember[] = [];
    const summary = await importMemberFile(() => [Buffer.from('id,username\nm1,ada\nm5,eve')], members, {
      disableMissing: true,
      // A second passes during the check, and another admin adds a member while the rows are written.
      onCheck: () => void (now += 1000),
      onRow: async () => {
        if (!(await members.exists('m9'))) await members.add({ id: 'm9', username: 'added-meanwhile' });
      },
      onDisabled: (member) => void disabled.push(member),
    });
    expect(summary).toMatchObject({ imported: 1, existing: 1, disabled: 2, notDisabledBecause: null });
    expect(disabled).toEqual([
      { id: 'm2', username: 'bob' },
      { id: 'm4', username: 'dee' },
    ]);
    const enabled = Object.fromEntries((await members.list()).map((member) => [member.id, member.enabled]));
    expect(enabled).toEqual({ m1: true, m2: false, m3: false, m4: false, m5: true, m9: true });

    const again = await importCollecting('id,username\nm1,ada\nm5,eve\nm9,added-meanwhile', members, { disableMissing: true });
    expect(again.summary).toMatchObject({ disabled: 0, notDisabledBecause: null });
  });

  it('disables nobody after a file with a refused row, or after an interruption', async () => {
    for (const [id, username] of [['m1', 'ada'], ['m2', 'bob']] as const) await services.members.add({ id, username });
    const refused = await importCollecting('id,username,is_member\nm1,ada,maybe', services.members, { update: true, disableMissing: true });
    expect(refused.summary).toMatchObject({ refused: 1, disabled: 0, notDisabledBecause: 'refused' });
    expect(refused.disabled).toEqual([]);

    const controller = new AbortController();
    const interrupted = await importCollecting(rowsCsv(3), services.members, {
      disableMissing: true,
      batchSize: 1,
      onProgress: () => controller.abort(),
      signal: controller.signal,
    });
    expect(interrupted.summary).toMatchObject({ rowsDone: 1, interrupted: true, disabled: 0, notDisabledBecause: 'interrupted' });
    expect((await services.members.list()).every((member) => member.enabled)).toBe(true);
  });
});

describe('importMemberFile with dryRun', () => {
  it('writes nothing, and reports what the same run without it then does', async () => {
    await services.members.add(ADA);
    await services.members.add({ id: 'm2', username: 'bob', email: 'bob@example.org' });
    await services.members.add({ id: 'm3', username: 'cy' });
    await services.members.add({ id: 'm4', username: 'taken' });
    const csv = [
      'id,username,email,password_hash,password_format,is_member',
      'm1,ada,ada@example.net,,,yes',
      'm2,bob,bob@example.org,,,',
      'm4,taken,,,,',
      'm5,eve,,eve clear password,0,no',
    ].join('\n');
    const before = await storedState(store);
    const options = { update: true, disableMissing: true };
    const dry = await importCollecting(csv, services.members, { ...options, dryRun: true });
    expect(await storedState(store)).toEqual(before);
    expect(dry.summary).toMatchObject({ imported: 1, updated: 1, unchanged: 2, refused: 0, disabled: 1 });
    expect(dry.report).toEqual([
      { line: 2, id: 'm1', status: 'updated', fields: ['email'] },
      { line: 3, id: 'm2', status: 'unchanged' },
      { line: 4, id: 'm4', status: 'unchanged' },
      { line: 5, id: 'm5', status: 'imported' },
    ]);
    expect(dry.disabled).toEqual([{ id: 'm3', username: 'cy' }]);

    const real = await importCollecting(csv, services.members, options);
    expect(real).toEqual(dry);
    expect(await storedState(store)).not.toEqual(before);
  });

  it('refuses in a dry run the rows the store would refuse', async () => {
    await services.members.add({ id: 'm1', username: 'ada' });
    const csv = ['id,username', 'm1,ada.lovelace', 'm2,ada'].join('\n');
    const dry = await importMembers(csv, services.members, { dryRun: true });
    expect(dry).toEqual([
      { line: 2, id: 'm1', status: 'refused', reason: 'A member with this id or username already exists: m1' },
      { line: 3, id: 'm2', status: 'refused', reason: 'A member with this id or username already exists: ada' },
    ]);
    expect(await importMembers(csv, services.members)).toEqual(dry);
  });
});

describeWithPostgres('importMemberFile on PostgreSQL', () => {
  let pg: Awaited<ReturnType<typeof tempPostgresStore>>;
  let pgServices: Services;

  beforeEach(async () => {
    pg = await tempPostgresStore();
    pgServices = servicesOver(pg.store);
  });
  afterEach(() => pg.cleanup());

  it('stops when the signal aborts, and a second run imports only what is missing, refusing what the store refuses', async () => {
    await pgServices.members.add({ id: 'taken', username: 'user7' });
    const csv = rowsCsv(2500);
    const controller = new AbortController();
    const first = await importMemberFile(() => [Buffer.from(csv)], pgServices.members, {
      onProgress: () => controller.abort(),
      signal: controller.signal,
    });
    expect(first).toEqual({ rowsTotal: 2500, rowsDone: 1000, imported: 999, existing: 0, refused: 1, interrupted: true, ...NO_UPDATES });
    const report = await importMembers(csv, pgServices.members);
    expect(report.filter((row) => row.status === 'existing')).toHaveLength(999);
    expect(report.filter((row) => row.status === 'imported')).toHaveLength(1500);
    expect(report.filter((row) => row.status === 'refused')).toEqual([
      { line: 8, id: 'm7', status: 'refused', reason: 'A member with this id or username already exists: user7' },
    ]);
    const members = await pgServices.members.list();
    expect(members).toHaveLength(2500);
    expect(new Set(members.map((member) => member.username.toLowerCase())).size).toBe(2500);
  });

  it('updates and disables the missing after a run interrupted with update, each change once', async () => {
    await importMembers(rowsCsv(2500), pgServices.members);
    // Every tenth row has a new email; the last 25 members are missing.
    const week = rowsCsv(2475, (n) => `m${n},user${n},${n % 10 === 0 ? 'new' : 'user'}${n}@example.org,First ${n},Last ${n}`);
    const options = { update: true, disableMissing: true };
    const controller = new AbortController();
    const first = await importMemberFile(() => [Buffer.from(week)], pgServices.members, {
      ...options,
      onProgress: () => controller.abort(),
      signal: controller.signal,
    });
    expect(first).toMatchObject({ rowsDone: 1000, updated: 100, unchanged: 900, disabled: 0, notDisabledBecause: 'interrupted' });

    const second = await importCollecting(week, pgServices.members, options);
    expect(second.summary).toMatchObject({ rowsDone: 2475, updated: 147, unchanged: 2328, refused: 0, disabled: 25, notDisabledBecause: null });
    expect(second.disabled.map((member) => member.id)).toEqual(Array.from({ length: 25 }, (_, index) => `m${index + 2476}`).sort());
    const members = await pgServices.members.list();
    expect(members.filter((member) => member.email.startsWith('new')).map((member) => Number(member.id.slice(1))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 247 }, (_, index) => (index + 1) * 10),
    );
    expect(members.filter((member) => !member.enabled)).toHaveLength(25);
  });
});
