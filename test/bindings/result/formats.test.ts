import { randomBytes } from 'node:crypto';
import { parseStringPromise } from 'xml2js';
import { RESULT_RENDERERS } from '../../../src/bindings/result/formats.js';
import { NOT_SIGNED_IN } from '../../../src/bindings/result/not-signed-in.js';
import { escapeXmlAttribute, escapeXmlText } from '../../../src/bindings/xml-text.js';
import type { Outcome } from '../../../src/service/authentication.js';
import { createServices } from '../../../src/service/index.js';
import type { OperationName } from '../../../src/service/wsdl-types.js';
import type { MemberRow } from '../../../src/store/store.js';
import { tempSqliteStore } from '../../helpers/temp-store.js';

const DECLARATION = '<?xml version="1.0" encoding="UTF-16"?>';
const OPERATIONS: OperationName[] = ['AuthenticateToken', 'AuthenticateCookie'];
const TOKEN = 'tK9_x-3Qv7wZpL2mN8rS4uY6aB1cD5eF0gH2iJ4kL6m';

function member(fields: Partial<MemberRow> = {}): MemberRow {
  return {
    id: '10042',
    username: 'ada',
    email: 'ada@example.org',
    firstName: 'Ada',
    lastName: 'Lovelace',
    enabled: true,
    createdAt: Date.UTC(2026, 0, 1),
    ...fields,
  };
}

function signedIn(m: MemberRow = member(), operation: OperationName = 'AuthenticateToken', token = TOKEN): Outcome {
  return { operation, caller: 'shop', signedIn: true, member: m, token };
}

function notSignedIn(operation: OperationName): Outcome {
  return { operation, caller: 'shop', signedIn: false, reason: 'unknown' };
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

const HOSTILE = {
  id: `id "1" 'x' <a> & ]]> b`,
  email: `"o'brien"+<tag>&]]>@example.org`,
  firstName: `Zoë "Q" 'Z' <b>bold</b> & co ]]> line1\nline2\ttab\u0001ctl 😀`,
  lastName: `O'Neil & <Sons> "Ltd" ]]>\r\n🎉 end`,
};
const CONTROL_REPLACED = (s: string) => s.replace(/\u0001/g, '\uFFFD');

describe('ibridge', () => {
  const render = RESULT_RENDERERS.ibridge;

  it('renders a success exactly as the reference example', () => {
    expect(render(signedIn())).toBe(
      `${DECLARATION}<iBridge><User ID="10042" TOKEN="${TOKEN}" EMAIL="ada@example.org" FIRSTNAME="Ada" LASTNAME="Lovelace" FULL_NAME="Ada Lovelace" /></iBridge>`,
    );
  });

  it('survives the ISGweb theme\'s rewrite (exactly "UTF-16" replaced by "UTF-8", case-sensitive) as a UTF-8 document', async () => {
    const rewritten = render(signedIn()).split('UTF-16').join('UTF-8');
    expect(rewritten.startsWith('<?xml version="1.0" encoding="UTF-8"?><iBridge>')).toBe(true);
    const doc = (await parseStringPromise(rewritten)) as { iBridge: { User: Array<{ $: Record<string, string> }> } };
    expect(doc.iBridge.User[0]?.$.ID).toBe('10042');
  });

  it.each(OPERATIONS)('starts with the double-quoted UTF-16 declaration, in upper case, and nothing before it (%s)', (operation) => {
    for (const text of [render(signedIn(member(), operation)), render(notSignedIn(operation))]) {
      expect(text.startsWith('<?xml version="1.0" encoding="UTF-16"?><iBridge>')).toBe(true);
      expect(text.endsWith('</iBridge>')).toBe(true);
    }
  });

  it('parses as an iBridge document whose User attributes round-trip', async () => {
    expect(await userAttributes(render(signedIn(member(), 'AuthenticateCookie')))).toEqual({
      ID: '10042',
      TOKEN,
      EMAIL: 'ada@example.org',
      FIRSTNAME: 'Ada',
      LASTNAME: 'Lovelace',
      FULL_NAME: 'Ada Lovelace',
    });
  });

  it.each(OPERATIONS)('renders not signed in exactly, in band, with the Number and Description of %s', (operation) => {
    const { number, description } = NOT_SIGNED_IN[operation];
    expect(render(notSignedIn(operation))).toBe(
      `${DECLARATION}<iBridge><Errors><Error Number="${number}" Description="${description}" /></Errors></iBridge>`,
    );
  });

  it.each(OPERATIONS)('parses not signed in as Errors/Error with a numeric Number and a Description (%s)', async (operation) => {
    const parsed = await parseIBridge(render(notSignedIn(operation)));
    expect(parsed.iBridge.User).toBeUndefined();
    expect(parsed.iBridge.Errors).toHaveLength(1);
    const errors = parsed.iBridge.Errors?.[0]?.Error ?? [];
    expect(errors).toHaveLength(1);
    expect(errors[0]?.$).toEqual({ Number: String(NOT_SIGNED_IN[operation].number), Description: NOT_SIGNED_IN[operation].description });
    expect(errors[0]?.$.Number).toMatch(/^\d+$/);
  });

  it('keeps the documented numbers and descriptions stable', () => {
    expect(NOT_SIGNED_IN).toEqual({
      AuthenticateToken: { number: 1001, description: 'Invalid token: no live session has this token' },
      AuthenticateCookie: {
        number: 1002,
        description: 'Invalid login cookie: no live session token was issued for this cookie and domain',
      },
    });
    expect(NOT_SIGNED_IN.AuthenticateToken.number).not.toBe(NOT_SIGNED_IN.AuthenticateCookie.number);
  });

  it('AuthenticateToken not signed in: the Description contains "token", so the PHP client signs the visitor out', async () => {
    const parsed = await parseIBridge(render(notSignedIn('AuthenticateToken')));
    expect(parsed.iBridge.Errors?.[0]?.Error[0]?.$.Description).toMatch(/token/i);
  });

  it('AuthenticateCookie not signed in: the Description does not read like an outage (contains "token" or "invalid username")', async () => {
    const parsed = await parseIBridge(render(notSignedIn('AuthenticateCookie')));
    expect(parsed.iBridge.Errors?.[0]?.Error[0]?.$.Description).toMatch(/token|invalid username/i);
  });

  it('renders every not-signed-in reason the same way', () => {
    const reasons = ['missing', 'unknown', 'revoked', 'expired', 'idle', 'member-disabled', 'domain-mismatch'] as const;
    for (const operation of OPERATIONS) {
      const texts = new Set(reasons.map((reason) => render({ operation, caller: 'shop', signedIn: false, reason })));
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
  const render = RESULT_RENDERERS.json;

  it('renders a success exactly with the CRM4M keys in order', () => {
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

  it.each(OPERATIONS)('renders not signed in exactly as {status: "Failure", message} (%s)', (operation) => {
    const text = render(notSignedIn(operation));
    expect(text).toBe(JSON.stringify({ status: 'Failure', message: NOT_SIGNED_IN[operation].description }));
    expect(JSON.parse(text)).toEqual({ status: 'Failure', message: NOT_SIGNED_IN[operation].description });
  });

  it.each(OPERATIONS)('a failure never contains the word "success", in any case (%s)', (operation) => {
    const reasons = ['missing', 'unknown', 'revoked', 'expired', 'idle', 'member-disabled', 'domain-mismatch'] as const;
    for (const reason of reasons) {
      expect(render({ operation, caller: 'shop', signedIn: false, reason }).toLowerCase()).not.toContain('success');
    }
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
  const render = RESULT_RENDERERS.plain;

  it.each(OPERATIONS)('renders the member id on success (%s)', (operation) => {
    expect(render(signedIn(member(), operation))).toBe('10042');
  });

  it('renders a hostile member id unchanged', () => {
    expect(render(signedIn(member(HOSTILE)))).toBe(HOSTILE.id);
  });

  it.each(OPERATIONS)('renders the empty string when nobody is signed in (%s)', (operation) => {
    expect(render(notSignedIn(operation))).toBe('');
  });
});

describe('through the services', () => {
  it('a hostile member stored, signed in by cookie and rendered keeps its values in ibridge and json', async () => {
    const { store, cleanup } = await tempSqliteStore();
    try {
      const services = createServices({
        store,
        secretKey: randomBytes(32),
        session: { absoluteTimeoutSeconds: 3600, idleTimeoutSeconds: 600, slidingIdle: true },
        clock: () => Date.UTC(2026, 0, 1),
      });
      const { password } = await services.callers.add('shop');
      await services.members.add({ ...HOSTILE, username: 'hostile' });
      const { cookie, token } = await services.sessions.create(HOSTILE.id, 'example.org');
      const outcome = await services.authentication.authenticateCookie(
        { securityPassword: password, loginCookie: cookie, cookieDomain: 'example.org' },
        { clientAddress: '198.51.100.1' },
      );
      expect(await userAttributes(RESULT_RENDERERS.ibridge(outcome))).toEqual({
        ID: HOSTILE.id,
        TOKEN: token,
        EMAIL: HOSTILE.email,
        FIRSTNAME: CONTROL_REPLACED(HOSTILE.firstName),
        LASTNAME: HOSTILE.lastName,
        FULL_NAME: CONTROL_REPLACED(`${HOSTILE.firstName} ${HOSTILE.lastName}`),
      });
      expect(JSON.parse(RESULT_RENDERERS.json(outcome))).toMatchObject({ contactid: HOSTILE.id, pa_token: token, firstname: HOSTILE.firstName });
      expect(RESULT_RENDERERS.plain(outcome)).toBe(HOSTILE.id);
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
