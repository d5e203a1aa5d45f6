import { parseStringPromise } from 'xml2js';
import { createResultRenderer, type ResultRenderer } from '../../../src/bindings/result/formats.js';
import { errorText } from '../../../src/bindings/asmx-errors.js';
import { ERRORS, type InBandCode } from '../../../src/bindings/errors/catalogue.js';
import { inBandError } from '../../../src/bindings/result/in-band-errors.js';
import { escapeXmlAttribute, escapeXmlText } from '../../../src/web/xml-text.js';
import { loadConfig } from '../../../src/config/config.js';
import { JSON_FIELD_NAMES } from '../../../src/config/result-fields.js';
import type { Outcome, Refusal, SessionCredentials } from '../../../src/service/authentication.js';
import { hashPassword } from '../../../src/service/passwords.js';
import type { NotSignedInReason } from '../../../src/service/sessions.js';
import type { OperationName } from '../../../src/service/wsdl-types.js';
import type { MemberAttributes, MemberRow } from '../../../src/store/store.js';
import { callContext } from '../../helpers/call-context.js';
import { refusalsOf } from '../../helpers/outcomes.js';
import { tempServices } from '../../helpers/test-services.js';

const DECLARATION = '<?xml version="1.0" encoding="UTF-16"?>';
/** The operations that check a session, and those that check a username and password. */
const SESSION_OPERATIONS = ['AuthenticateToken', 'AuthenticateCookie', 'DeleteUserSession'] as const;
const CREDENTIAL_OPERATIONS = ['AuthenticateUser', 'Login', 'ValidateUser'] as const;
const OPERATIONS: OperationName[] = ['AuthenticateToken', 'AuthenticateCookie'];
const REASONS: NotSignedInReason[] = ['missing', 'unknown', 'revoked', 'expired', 'idle', 'member-disabled', 'domain-mismatch'];
const TOKEN = 'tK9_x-3Qv7wZpL2mN8rS4uY6aB1cD5eF0gH2iJ4kL6m';
const COOKIE = 'cQ2_w-8Rt5yUiO3pA7sD1fG4hJ6kL9zX0cV2bN5mQ8e';
const SESSION: SessionCredentials = { token: TOKEN, cookie: COOKIE };
const ALL_REFUSALS: Array<[string, OperationName, Refusal]> = [
  ...SESSION_OPERATIONS.map((operation): [string, OperationName, Refusal] => ['not signed in', operation, { kind: 'not-signed-in', reason: 'unknown' }]),
  ...CREDENTIAL_OPERATIONS.flatMap((operation): Array<[string, OperationName, Refusal]> => [
    ['invalid credentials', operation, { kind: 'invalid-credentials' }],
    ['locked', operation, { kind: 'locked', retryAfterSeconds: 840 }],
    ['second factor required', operation, { kind: 'second-factor-required' }],
  ]),
];

/** The renderer a deployment with these settings (as environment variables) uses. */
const rendererFor = (env: Record<string, string> = {}): ResultRenderer => createResultRenderer(loadConfig(env));

function member(fields: Partial<MemberRow> = {}): MemberRow {
  return {
    id: '10042',
    username: 'ada',
    email: 'ada@example.org',
    firstName: 'Ada',
    lastName: 'Lovelace',
    enabled: true,
    createdAt: Date.UTC(2026, 0, 1),
    attributes: {},
    version: 1,
    updatedAt: Date.UTC(2026, 0, 1),
    externalId: null,
    displayName: null,
    formattedName: null,
    ...fields,
  };
}

/** Every attribute known, as CRM4M and iBridge partners read them. */
const ATTRIBUTES: MemberAttributes = {
  isMember: true,
  contactNumber: 'C-0042',
  labelName: 'Ms A. Lovelace',
  organisationId: '7d1c3a54-5f0e-4a44-9b7a-2f6f1e0c9a11',
  organisationName: 'Analytical Engines Ltd',
  priceLevelId: 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d',
  priceLevelName: 'Member rate',
  roles: [
    { id: '11111111-2222-4333-8444-555555555555', name: 'Board' },
    { id: '66666666-7777-4888-9999-000000000000', name: 'Volunteer' },
  ],
  extra: { MEMBER_TYPE: 'Fellow', account: 'ACC-9' },
};

function signedIn(m: MemberRow = member(), operation: OperationName = 'AuthenticateToken', session: SessionCredentials | null = SESSION): Outcome {
  return { operation, caller: 'shop', kind: 'member', member: m, session };
}

const { notSignedIn, refused } = refusalsOf('shop');

function sessionEnded(m: MemberRow = member()): Outcome {
  return { operation: 'DeleteUserSession', caller: 'shop', kind: 'session-ended', member: m };
}

/** The in-band error a refusal is reported with: its number and description. */
function errorOf(operation: OperationName, refusal: Refusal) {
  const outcome = refused(operation, refusal);
  if (outcome.kind !== 'refused') throw new Error('not a refusal');
  const error = inBandError(outcome);
  return { number: ERRORS[error.code].number, description: errorText(error) };
}

interface ParsedIBridge {
  iBridge: {
    User?: Array<{ $: Record<string, string> }>;
    Errors?: Array<{ Error: Array<{ $: Record<string, string> }> }>;
  };
}

async function parseIBridge(text: string): Promise<ParsedIBridge> {
  return (await parseStringPromise(text)) as ParsedIBridge;
}

async function userAttributes(text: string): Promise<Record<string, string>> {
  const parsed = await parseIBridge(text);
  expect(Object.keys(parsed)).toEqual(['iBridge']);
  expect(parsed.iBridge.Errors).toBeUndefined();
  expect(parsed.iBridge.User).toHaveLength(1);
  return parsed.iBridge.User?.[0]?.$ ?? {};
}

async function errorAttributes(text: string): Promise<Record<string, string>> {
  const parsed = await parseIBridge(text);
  expect(parsed.iBridge.User).toBeUndefined();
  expect(parsed.iBridge.Errors).toHaveLength(1);
  const errors = parsed.iBridge.Errors?.[0]?.Error ?? [];
  expect(errors).toHaveLength(1);
  return errors[0]?.$ ?? {};
}

const HOSTILE = {
  id: `id "1" 'x' <a> & ]]> b`,
  email: `"o'brien"+<tag>&]]>@example.org`,
  firstName: `Zoë "Q" 'Z' <b>bold</b> & co ]]> line1\nline2\ttab\u0001ctl 😀`,
  lastName: `O'Neil & <Sons> "Ltd" ]]>\r\n🎉 end`,
};
const HOSTILE_TEXT = `"Q" 'Z' <b>x</b> & ]]> |=; line1\nline2\t😀`;
const CONTROL_REPLACED = (s: string) => s.replace(/\u0001/g, '\uFFFD');

describe('ibridge', () => {
  const render = rendererFor({ RESULT_FORMAT: 'ibridge' });
  /** The User attributes every signed-in member has, in the default configuration. */
  const CORE = { ID: '10042', TOKEN, EMAIL: 'ada@example.org', FIRSTNAME: 'Ada', LASTNAME: 'Lovelace', FULL_NAME: 'Ada Lovelace', USER_COOKIE: `.ASPXAUTH=${COOKIE}` };

  it("renders a success exactly: the reference example's attributes, then USER_COOKIE with the login cookie", () => {
    expect(render(signedIn())).toBe(
      `${DECLARATION}<iBridge><User ID="10042" TOKEN="${TOKEN}" EMAIL="ada@example.org" FIRSTNAME="Ada" LASTNAME="Lovelace" FULL_NAME="Ada Lovelace" USER_COOKIE=".ASPXAUTH=${COOKIE}" /></iBridge>`,
    );
  });

  it('survives the ISGweb theme\'s rewrite (exactly "UTF-16" replaced by "UTF-8", case-sensitive) as a UTF-8 document', async () => {
    const rewritten = render(signedIn()).split('UTF-16').join('UTF-8');
    expect(rewritten.startsWith('<?xml version="1.0" encoding="UTF-8"?><iBridge>')).toBe(true);
    const doc = (await parseStringPromise(rewritten)) as { iBridge: { User: Array<{ $: Record<string, string> }> } };
    expect(doc.iBridge.User[0]?.$.ID).toBe('10042');
  });

  it('starts every answer with exactly the double-quoted, upper-case UTF-16 declaration and nothing before it', () => {
    const outcomes = [
      ...OPERATIONS.map((operation) => signedIn(member(), operation)),
      signedIn(member(), 'Login', null),
      sessionEnded(),
      ...ALL_REFUSALS.map(([, operation, refusal]) => refused(operation, refusal)),
    ];
    for (const text of outcomes.map(render)) {
      expect(text.startsWith(`${DECLARATION}<iBridge>`)).toBe(true);
      expect(text.endsWith('</iBridge>')).toBe(true);
    }
  });

  it('parses as an iBridge document whose User attributes round-trip', async () => {
    expect(await userAttributes(render(signedIn(member(), 'AuthenticateCookie')))).toEqual(CORE);
  });

  describe('USER_COOKIE', () => {
    it('joins the login cookie and, when TOKEN_COOKIE_NAME is set, the token cookie as NAME=value pairs with |', async () => {
      const text = rendererFor({ LOGIN_COOKIE_NAME: 'iMIS_Login', TOKEN_COOKIE_NAME: 'Token' })(signedIn(member(), 'AuthenticateUser'));
      expect((await userAttributes(text)).USER_COOKIE).toBe(`iMIS_Login=${COOKIE}|Token=${TOKEN}`);
    });

    it('carries the Token cookie under PROFILE=isgweb', async () => {
      const text = rendererFor({ PROFILE: 'isgweb' })(signedIn());
      expect((await userAttributes(text)).USER_COOKIE).toBe(`.ASPXAUTH=${COOKIE}|Token=${TOKEN}`);
    });

    it('leaves the login cookie pair out for a session whose cookie is not known, and USER_COOKIE when no pair is left', async () => {
      const oldSession = signedIn(member(), 'AuthenticateToken', { token: TOKEN, cookie: null });
      expect((await userAttributes(rendererFor({ TOKEN_COOKIE_NAME: 'Token' })(oldSession))).USER_COOKIE).toBe(`Token=${TOKEN}`);
      const text = render(oldSession);
      expect(text).not.toContain('.ASPXAUTH');
      expect(text).not.toContain('USER_COOKIE');
      expect((await userAttributes(text)).TOKEN).toBe(TOKEN);
    });

    it.each(['Login', 'ValidateUser'] as const)('and TOKEN are absent for the session-less member of %s', async (operation) => {
      const text = rendererFor({ TOKEN_COOKIE_NAME: 'Token' })(signedIn(member(), operation, null));
      expect(text).toBe(
        `${DECLARATION}<iBridge><User ID="10042" EMAIL="ada@example.org" FIRSTNAME="Ada" LASTNAME="Lovelace" FULL_NAME="Ada Lovelace" /></iBridge>`,
      );
      expect(await userAttributes(text)).toEqual({ ID: '10042', EMAIL: 'ada@example.org', FIRSTNAME: 'Ada', LASTNAME: 'Lovelace', FULL_NAME: 'Ada Lovelace' });
    });
  });

  describe('IBRIDGE_USER_ATTRIBUTES', () => {
    const ALL = 'IS_MEMBER,CONTACT_NUMBER,LABEL_NAME,ORGANISATION_ID,ORGANISATION_NAME,PRICE_LEVEL_ID,PRICE_LEVEL_NAME,ROLES,attr:MEMBER_TYPE';

    it('adds the chosen attributes after the core ones, in the order chosen', () => {
      const text = rendererFor({ IBRIDGE_USER_ATTRIBUTES: 'ROLES,attr:MEMBER_TYPE,IS_MEMBER,CONTACT_NUMBER' })(signedIn(member({ attributes: ATTRIBUTES })));
      expect(text).toBe(
        `${DECLARATION}<iBridge><User ID="10042" TOKEN="${TOKEN}" EMAIL="ada@example.org" FIRSTNAME="Ada" LASTNAME="Lovelace" FULL_NAME="Ada Lovelace" USER_COOKIE=".ASPXAUTH=${COOKIE}" ROLES="Board|Volunteer" MEMBER_TYPE="Fellow" IS_MEMBER="true" CONTACT_NUMBER="C-0042" /></iBridge>`,
      );
    });

    it('gives every known attribute and an attr: extra its value', async () => {
      expect(await userAttributes(rendererFor({ IBRIDGE_USER_ATTRIBUTES: ALL })(signedIn(member({ attributes: ATTRIBUTES }))))).toEqual({
        ...CORE,
        IS_MEMBER: 'true',
        CONTACT_NUMBER: 'C-0042',
        LABEL_NAME: 'Ms A. Lovelace',
        ORGANISATION_ID: ATTRIBUTES.organisationId,
        ORGANISATION_NAME: 'Analytical Engines Ltd',
        PRICE_LEVEL_ID: ATTRIBUTES.priceLevelId,
        PRICE_LEVEL_NAME: 'Member rate',
        ROLES: 'Board|Volunteer',
        MEMBER_TYPE: 'Fellow',
      });
    });

    it('leaves out the chosen attributes a member does not have, and writes IS_MEMBER false as "false"', async () => {
      const renderAll = rendererFor({ IBRIDGE_USER_ATTRIBUTES: ALL });
      expect(await userAttributes(renderAll(signedIn()))).toEqual(CORE);
      expect(await userAttributes(renderAll(signedIn(member({ attributes: { isMember: false } }))))).toEqual({ ...CORE, IS_MEMBER: 'false' });
    });

    it('are not added when none are chosen, whatever the member has', async () => {
      expect(await userAttributes(render(signedIn(member({ attributes: ATTRIBUTES }))))).toEqual(CORE);
    });

    it('escapes hostile values, known and extra, so that they parse back exactly (U+0001 becomes U+FFFD)', async () => {
      const hostile = member({
        attributes: {
          labelName: HOSTILE_TEXT,
          organisationName: `${HOSTILE_TEXT}\u0001`,
          roles: [{ id: 'r1', name: HOSTILE_TEXT }],
          extra: { MEMBER_TYPE: HOSTILE_TEXT },
        },
      });
      const text = rendererFor({ IBRIDGE_USER_ATTRIBUTES: 'LABEL_NAME,ORGANISATION_NAME,ROLES,attr:MEMBER_TYPE' })(signedIn(hostile));
      expect(text).not.toContain('<b>');
      expect(text).not.toContain(']]>');
      expect(text).not.toContain('\u0001');
      expect(await userAttributes(text)).toEqual({
        ...CORE,
        LABEL_NAME: HOSTILE_TEXT,
        ORGANISATION_NAME: `${HOSTILE_TEXT}\uFFFD`,
        ROLES: HOSTILE_TEXT,
        MEMBER_TYPE: HOSTILE_TEXT,
      });
    });
  });

  it('renders an ended session as a non-empty iBridge document without Errors or User', async () => {
    const text = render(sessionEnded());
    expect(text.startsWith(`${DECLARATION}<iBridge>`)).toBe(true);
    const parsed = await parseIBridge(text);
    expect(Object.keys(parsed)).toEqual(['iBridge']);
    expect(parsed.iBridge).toEqual(expect.any(Object));
    expect(Object.keys(parsed.iBridge).length).toBeGreaterThan(0);
    expect(parsed.iBridge.Errors).toBeUndefined();
    expect(parsed.iBridge.User).toBeUndefined();
    expect(text).not.toMatch(/token|invalid username/i);
  });

  it.each(ALL_REFUSALS)('renders %s exactly, in band, with the Number and Description of %s', (_label, operation, refusal) => {
    const { number, description } = errorOf(operation, refusal);
    expect(render(refused(operation, refusal))).toBe(
      `${DECLARATION}<iBridge><Errors><Error Number="${number}" Description="${escapeXmlAttribute(description)}" /></Errors></iBridge>`,
    );
  });

  it.each(ALL_REFUSALS)('parses %s as Errors/Error with a numeric Number and a Description (%s)', async (_label, operation, refusal) => {
    const { number, description } = errorOf(operation, refusal);
    const error = await errorAttributes(render(refused(operation, refusal)));
    expect(error).toEqual({ Number: String(number), Description: description });
    expect(error.Number).toMatch(/^\d+$/);
  });

  it('keeps the documented numbers and descriptions stable, one number per error', () => {
    const described = (code: InBandCode, ...args: string[]) => ({ number: ERRORS[code].number, description: errorText({ code, args }) });
    expect(described('TOKEN_NOT_SIGNED_IN')).toEqual({ number: 1001, description: 'Invalid token: no live session has this token' });
    expect(described('COOKIE_NOT_SIGNED_IN')).toEqual({ number: 1002, description: 'Invalid login cookie: no live session token was issued for this cookie and domain' });
    expect(described('SESSION_NOT_DELETED')).toEqual({ number: 1003, description: 'Invalid token: no live session has this token to delete' });
    expect(described('INVALID_CREDENTIALS')).toEqual({ number: 1004, description: 'Invalid username or password' });
    // The vendor's own number and text (with its capital A and full stop), which partner code matches.
    expect(described('SECOND_FACTOR_REQUIRED')).toEqual({ number: 16000, description: 'Multi factor Authenticator token is required.' });
    expect(described('LOCKED', '840')).toEqual({
      number: 1005,
      description: 'Sign-in is locked after repeated failures for this account or address; try again in 840 seconds',
    });
    const numbers = new Set(ALL_REFUSALS.map(([, operation, refusal]) => errorOf(operation, refusal).number));
    expect(numbers).toEqual(new Set([1001, 1002, 1003, 1004, 1005, 16000]));
  });

  it.each(SESSION_OPERATIONS)('%s not signed in: the Description contains "token", so the PHP client signs the visitor out', async (operation) => {
    expect((await errorAttributes(render(notSignedIn(operation)))).Description).toMatch(/token/i);
  });

  it.each(CREDENTIAL_OPERATIONS)('%s with invalid credentials: the Description matches /invalid username/i and not /token/i', async (operation) => {
    const { Description } = await errorAttributes(render(refused(operation, { kind: 'invalid-credentials' })));
    expect(Description).toMatch(/invalid username/i);
    expect(Description).not.toMatch(/token/i);
  });

  it.each(CREDENTIAL_OPERATIONS)('%s locked: the Description reads as neither a token nor a credentials error, and gives the seconds', async (operation) => {
    const { Description } = await errorAttributes(render(refused(operation, { kind: 'locked', retryAfterSeconds: 840 })));
    expect(Description).not.toMatch(/token/i);
    expect(Description).not.toMatch(/invalid username/i);
    expect(Description).toContain('840 seconds');
  });

  it.each(CREDENTIAL_OPERATIONS)('%s without the second factor: Error 16000 with the vendor\'s Description', (operation) => {
    expect(render(refused(operation, { kind: 'second-factor-required' }))).toBe(
      `${DECLARATION}<iBridge><Errors><Error Number="16000" Description="Multi factor Authenticator token is required." /></Errors></iBridge>`,
    );
  });

  it('renders every not-signed-in reason the same way', () => {
    for (const operation of SESSION_OPERATIONS) {
      const texts = new Set(REASONS.map((reason) => render(notSignedIn(operation, reason))));
      expect(texts.size).toBe(1);
    }
  });

  it('a hostile member parses as XML and gives back exactly the same values (U+0001 becomes U+FFFD)', async () => {
    const text = render(signedIn(member(HOSTILE)));
    expect(text).not.toContain('\u0001');
    expect(text).not.toContain('<b>');
    expect(text).not.toContain(']]>');
    expect(await userAttributes(text)).toEqual({
      ID: HOSTILE.id,
      TOKEN,
      EMAIL: HOSTILE.email,
      FIRSTNAME: CONTROL_REPLACED(HOSTILE.firstName),
      LASTNAME: HOSTILE.lastName,
      FULL_NAME: CONTROL_REPLACED(`${HOSTILE.firstName} ${HOSTILE.lastName}`),
      USER_COOKIE: `.ASPXAUTH=${COOKIE}`,
    });
  });

  it('keeps a non-BMP character whole (not as two replacement characters)', async () => {
    const text = render(signedIn(member({ firstName: '😀', lastName: '𝔘' })));
    expect(text).toContain('FIRSTNAME="😀"');
    expect(text).not.toContain('\uFFFD');
    expect((await userAttributes(text)).FULL_NAME).toBe('😀 𝔘');
  });

  it('replaces a lone surrogate with U+FFFD so the document stays well-formed', async () => {
    const text = render(signedIn(member({ firstName: 'a\uD800b' })));
    expect((await userAttributes(text)).FIRSTNAME).toBe('a\uFFFDb');
  });

  it('FULL_NAME of a member with only a first name has no trailing space', async () => {
    expect((await userAttributes(render(signedIn(member({ lastName: '' }))))).FULL_NAME).toBe('Ada');
  });

  it('FULL_NAME of a member with only a last name has no leading space, and of one without names is empty', async () => {
    expect((await userAttributes(render(signedIn(member({ firstName: '' }))))).FULL_NAME).toBe('Lovelace');
    expect((await userAttributes(render(signedIn(member({ firstName: '', lastName: '' }))))).FULL_NAME).toBe('');
  });
});

describe('json', () => {
  const render = rendererFor({ RESULT_FORMAT: 'json' });

  it('renders a success exactly with the default CRM4M keys in order', () => {
    expect(render(signedIn())).toBe(
      `{"status":"Success","message":"","contactid":"10042","pa_token":"${TOKEN}","emailaddress1":"ada@example.org","firstname":"Ada","lastname":"Lovelace","fullname":"Ada Lovelace"}`,
    );
  });

  it('a success has exactly the keys status, message, contactid, pa_token, emailaddress1, firstname, lastname, fullname', () => {
    const parsed = JSON.parse(render(signedIn(member(), 'AuthenticateCookie'))) as Record<string, unknown>;
    expect(Object.keys(parsed).sort()).toEqual(
      ['status', 'message', 'contactid', 'pa_token', 'emailaddress1', 'firstname', 'lastname', 'fullname'].sort(),
    );
    expect(parsed).toEqual({
      status: 'Success',
      message: '',
      contactid: '10042',
      pa_token: TOKEN,
      emailaddress1: 'ada@example.org',
      firstname: 'Ada',
      lastname: 'Lovelace',
      fullname: 'Ada Lovelace',
    });
  });

  it('gives pa_token null for the session-less member of ValidateUser, so no client takes it for a session', () => {
    expect(JSON.parse(render(signedIn(member(), 'ValidateUser', null)))).toMatchObject({ status: 'Success', contactid: '10042', pa_token: null });
  });

  describe('with the full CRM4M field list (PROFILE=crm4m)', () => {
    const renderCrm4m = rendererFor({ PROFILE: 'crm4m' });

    it('renders every field exactly, in the catalogue order', () => {
      expect(renderCrm4m(signedIn(member({ attributes: ATTRIBUTES }), 'AuthenticateUser'))).toBe(
        JSON.stringify({
          status: 'Success',
          message: '',
          contactid: '10042',
          pa_webloginname: 'ada',
          emailaddress1: 'ada@example.org',
          firstname: 'Ada',
          lastname: 'Lovelace',
          fullname: 'Ada Lovelace',
          pa_member: true,
          pa_token: TOKEN,
          pa_contactnumber: 'C-0042',
          pa_labelname: 'Ms A. Lovelace',
          parentcustomerid: 'Analytical Engines Ltd',
          parentcustomerid_id: ATTRIBUTES.organisationId,
          defaultpricelevelid: 'Member rate',
          defaultpricelevelid_id: ATTRIBUTES.priceLevelId,
          pa_webroles: ATTRIBUTES.roles,
        }),
      );
      expect(Object.keys(JSON.parse(renderCrm4m(signedIn())) as object)).toEqual([...JSON_FIELD_NAMES]);
    });

    it('gives pa_member as a boolean (false when not known), pa_webroles as a list, and null for what is not known', () => {
      expect(JSON.parse(renderCrm4m(signedIn(member(), 'AuthenticateToken')))).toEqual({
        status: 'Success',
        message: '',
        contactid: '10042',
        pa_webloginname: 'ada',
        emailaddress1: 'ada@example.org',
        firstname: 'Ada',
        lastname: 'Lovelace',
        fullname: 'Ada Lovelace',
        pa_member: false,
        pa_token: TOKEN,
        pa_contactnumber: null,
        pa_labelname: null,
        parentcustomerid: null,
        parentcustomerid_id: null,
        defaultpricelevelid: null,
        defaultpricelevelid_id: null,
        pa_webroles: [],
      });
      const parsed = JSON.parse(renderCrm4m(signedIn(member({ attributes: { isMember: false, roles: [{ id: 'r1', name: 'Board' }] } })))) as Record<string, unknown>;
      expect(parsed.pa_member).toBe(false);
      expect(parsed.pa_webroles).toEqual([{ id: 'r1', name: 'Board' }]);
    });

    it('renders a failure as {status: "Failure", message}, without the word "success" in any case', () => {
      for (const [, operation, refusal] of ALL_REFUSALS) {
        const text = renderCrm4m(refused(operation, refusal));
        expect(text).toBe(JSON.stringify({ status: 'Failure', message: errorOf(operation, refusal).description }));
        expect(text.toLowerCase()).not.toContain('success');
      }
    });
  });

  it('adds attr: extras under their own key, null for a member without them', () => {
    const renderExtras = rendererFor({ RESULT_FORMAT: 'json', JSON_FIELDS: 'status,contactid,attr:account,attr:MEMBER_TYPE' });
    expect(renderExtras(signedIn(member({ attributes: ATTRIBUTES })))).toBe('{"status":"Success","contactid":"10042","account":"ACC-9","MEMBER_TYPE":"Fellow"}');
    expect(JSON.parse(renderExtras(signedIn()))).toEqual({ status: 'Success', contactid: '10042', account: null, MEMBER_TYPE: null });
  });

  it('gives an attr: extra named like a property of every object only when the member has it', () => {
    const renderInherited = rendererFor({ RESULT_FORMAT: 'json', JSON_FIELDS: 'status,attr:constructor,attr:toString' });
    expect(renderInherited(signedIn())).toBe('{"status":"Success","constructor":null,"toString":null}');
    const own = member({ attributes: { ...ATTRIBUTES, extra: { constructor: 'kept' } } });
    expect(renderInherited(signedIn(own))).toBe('{"status":"Success","constructor":"kept","toString":null}');
    const ibridge = rendererFor({ RESULT_FORMAT: 'ibridge', IBRIDGE_USER_ATTRIBUTES: 'ROLES,attr:constructor' });
    expect(ibridge(signedIn())).not.toContain('constructor=');
  });

  it('renders an ended session exactly as {"status":"Success"}', () => {
    expect(render(sessionEnded())).toBe('{"status":"Success"}');
    expect(rendererFor({ PROFILE: 'crm4m' })(sessionEnded(member({ attributes: ATTRIBUTES })))).toBe('{"status":"Success"}');
  });

  it.each(ALL_REFUSALS)('renders %s exactly as {status: "Failure", message} (%s)', (_label, operation, refusal) => {
    const text = render(refused(operation, refusal));
    const { description } = errorOf(operation, refusal);
    expect(text).toBe(JSON.stringify({ status: 'Failure', message: description }));
    expect(JSON.parse(text)).toEqual({ status: 'Failure', message: description });
  });

  it('renders the second factor wanted as the vendor\'s message', () => {
    expect(render(refused('AuthenticateUser', { kind: 'second-factor-required' }))).toBe(
      '{"status":"Failure","message":"Multi factor Authenticator token is required."}',
    );
  });

  it.each(SESSION_OPERATIONS)('a failure never contains the word "success", in any case (%s)', (operation) => {
    for (const reason of REASONS) {
      expect(render(notSignedIn(operation, reason)).toLowerCase()).not.toContain('success');
    }
  });

  it('leaves the message out of failures, and of successes, when the field list has no message', () => {
    const renderTerse = rendererFor({ RESULT_FORMAT: 'json', JSON_FIELDS: 'status,contactid,pa_token' });
    for (const [, operation, refusal] of ALL_REFUSALS) expect(renderTerse(refused(operation, refusal))).toBe('{"status":"Failure"}');
    expect(renderTerse(signedIn())).toBe(`{"status":"Success","contactid":"10042","pa_token":"${TOKEN}"}`);
  });

  it('a hostile member parses back with exactly the same values', () => {
    const text = render(signedIn(member(HOSTILE)));
    expect(JSON.parse(text)).toEqual({
      status: 'Success',
      message: '',
      contactid: HOSTILE.id,
      pa_token: TOKEN,
      emailaddress1: HOSTILE.email,
      firstname: HOSTILE.firstName,
      lastname: HOSTILE.lastName,
      fullname: `${HOSTILE.firstName} ${HOSTILE.lastName}`,
    });
  });

  it('fullname of a member with only a first name has no trailing space', () => {
    expect((JSON.parse(render(signedIn(member({ lastName: '' })))) as { fullname: string }).fullname).toBe('Ada');
  });
});

describe('plain', () => {
  const render = rendererFor({ RESULT_FORMAT: 'plain' });

  it.each(OPERATIONS)('renders the member id on success (%s)', (operation) => {
    expect(render(signedIn(member(), operation))).toBe('10042');
  });

  it('renders the member id for a member without a session, and for an ended session', () => {
    expect(render(signedIn(member(), 'Login', null))).toBe('10042');
    expect(render(sessionEnded())).toBe('10042');
  });

  it('renders a hostile member id unchanged', () => {
    expect(render(signedIn(member(HOSTILE)))).toBe(HOSTILE.id);
  });

  it.each(ALL_REFUSALS)('renders the empty string for %s (%s)', (_label, operation, refusal) => {
    expect(render(refused(operation, refusal))).toBe('');
  });
});

describe('through the services', () => {
  const services = async () => {
    const { services: created, cleanup } = await tempServices({
      session: { absoluteTimeoutSeconds: 3600, idleTimeoutSeconds: 600, slidingIdle: true },
      clock: () => Date.UTC(2026, 0, 1),
    });
    return { services: created, cleanup, password: (await created.callers.add('shop')).password };
  };

  it('a hostile member stored, signed in by cookie and rendered keeps its values in ibridge and json', async () => {
    const { services: s, cleanup, password } = await services();
    try {
      await s.members.add({ ...HOSTILE, username: 'hostile' });
      const { cookie, token } = await s.sessions.create(HOSTILE.id, 'example.org');
      const outcome = await s.authentication.authenticateCookie(
        { securityPassword: password, loginCookie: cookie, cookieDomain: 'example.org' },
        callContext('198.51.100.1'),
      );
      expect(await userAttributes(rendererFor()(outcome))).toEqual({
        ID: HOSTILE.id,
        TOKEN: token,
        EMAIL: HOSTILE.email,
        FIRSTNAME: CONTROL_REPLACED(HOSTILE.firstName),
        LASTNAME: HOSTILE.lastName,
        FULL_NAME: CONTROL_REPLACED(`${HOSTILE.firstName} ${HOSTILE.lastName}`),
        USER_COOKIE: `.ASPXAUTH=${cookie}`,
      });
      expect(JSON.parse(rendererFor({ RESULT_FORMAT: 'json' })(outcome))).toMatchObject({ contactid: HOSTILE.id, pa_token: token, firstname: HOSTILE.firstName });
      expect(rendererFor({ RESULT_FORMAT: 'plain' })(outcome)).toBe(HOSTILE.id);
    } finally {
      await cleanup();
    }
  });

  it("AuthenticateUser's USER_COOKIE and TOKEN sign the visitor in again through AuthenticateCookie and AuthenticateToken", async () => {
    const { services: s, cleanup, password } = await services();
    try {
      await s.members.add({ id: '10042', username: 'ada', email: 'ada@example.org' }, await hashPassword('correct horse'));
      const context = callContext('198.51.100.1', 'members.example.org');
      const outcome = await s.authentication.authenticateUser(
        { securityPassword: password, username: 'ada', password: 'correct horse', authenticationToken: null },
        context,
      );
      const user = await userAttributes(rendererFor({ PROFILE: 'isgweb' })(outcome));
      const pairs = Object.fromEntries((user.USER_COOKIE ?? '').split('|').map((pair) => pair.split('=') as [string, string]));
      expect(Object.keys(pairs)).toEqual(['.ASPXAUTH', 'Token']);
      expect(pairs.Token).toBe(user.TOKEN);
      const byCookie = await s.authentication.authenticateCookie(
        { securityPassword: password, loginCookie: pairs['.ASPXAUTH'] ?? null, cookieDomain: 'members.example.org' },
        context,
      );
      expect(byCookie).toMatchObject({ kind: 'member', member: { id: '10042' }, session: { token: user.TOKEN } });
      const byToken = await s.authentication.authenticateToken({ securityPassword: password, token: user.TOKEN ?? null }, context);
      expect(byToken).toMatchObject({ kind: 'member', member: { id: '10042' } });
    } finally {
      await cleanup();
    }
  });
});

describe('escapeXmlText', () => {
  it('escapes &, < and > only, never quotes', () => {
    expect(escapeXmlText(`a & b < c > d "e" 'f'`)).toBe(`a &amp; b &lt; c &gt; d "e" 'f'`);
  });

  it('escapes an already escaped entity again', () => {
    expect(escapeXmlText('&amp; &lt;')).toBe('&amp;amp; &amp;lt;');
  });

  it('escapes the > of ]]>', () => {
    expect(escapeXmlText(']]>')).toBe(']]&gt;');
  });

  it('leaves tab and newline as they are', () => {
    expect(escapeXmlText('a\tb\nc')).toBe('a\tb\nc');
  });

  it('leaves the utf-16 declaration of an inner document with its double quotes', () => {
    expect(escapeXmlText(`${DECLARATION}<iBridge />`)).toBe('&lt;?xml version="1.0" encoding="UTF-16"?&gt;&lt;iBridge /&gt;');
  });

  it('replaces characters XML 1.0 cannot carry with U+FFFD and keeps non-BMP characters', () => {
    expect(escapeXmlText('a\u0001b\u0000c\u001Fd\uFFFEe\uD800f😀')).toBe('a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf😀');
  });
});

describe('escapeXmlAttribute', () => {
  it('escapes &, <, > and the double quote, but not the apostrophe', () => {
    expect(escapeXmlAttribute(`a & b < c > d "e" 'f'`)).toBe(`a &amp; b &lt; c &gt; d &quot;e&quot; 'f'`);
  });

  it('escapes tab, newline and carriage return as character references', () => {
    expect(escapeXmlAttribute('a\tb\nc\rd')).toBe('a&#x9;b&#xA;c&#xD;d');
  });

  it('replaces characters XML 1.0 cannot carry with U+FFFD and keeps non-BMP characters', () => {
    expect(escapeXmlAttribute('x\u0001y\uDC00z🎉')).toBe('x\uFFFDy\uFFFDz🎉');
  });
});
