import { METHODS } from 'node:http';
import { fc } from '../helpers/seeded-fast-check.js';
import { SOAP_NS, xmlText } from '../helpers/soap-envelopes.js';
import { MARKUP_MARKER } from './asmx-shapes.js';

/**
 * Generators for the binding fuzzers: SOAP envelopes (valid, then mutated), query strings and form bodies,
 * headers and content types. Everything they produce goes on the wire well framed (see wire.ts); only
 * what is inside the frame is arbitrary.
 */

export type Version = '1.1' | '1.2';
export type Operation = 'AuthenticateToken' | 'AuthenticateCookie';
export const OPERATIONS: readonly Operation[] = ['AuthenticateToken', 'AuthenticateCookie'];
export const PARAMETERS: Record<Operation, readonly string[]> = {
  AuthenticateToken: ['securityPassword', 'token'],
  AuthenticateCookie: ['securityPassword', 'loginCookie', 'cookieDomain'],
};

/** The values a call needs to succeed; secrets except the domain. */
export interface Credentials {
  namespace: string;
  securityPassword: string;
  token: string;
  loginCookie: string;
  cookieDomain: string;
}

export const marker = `${MARKUP_MARKER}>`;

/**
 * Text a header value may carry as it is: printable ASCII, sometimes Latin-1 bytes above 0x7F (Node reads
 * header bytes as Latin-1). Request targets get it percent-encoded (targetSafe).
 */
export const printable = (maxLength: number) =>
  fc.string({
    unit: fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) }, { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) }).map((c) => String.fromCharCode(c)),
    maxLength,
  });

/** Any text, including characters XML cannot carry and lone surrogates. */
const anyText = (maxLength: number) =>
  fc.oneof(fc.string({ unit: 'grapheme', maxLength }), fc.string({ unit: 'binary', maxLength }), printable(maxLength));

// ---------------------------------------------------------------------------------------------------------
// Headers

export const charsetLabel = fc.constantFrom(
  'utf-8',
  'UTF-8',
  'utf8',
  '"utf-8"',
  'utf-16',
  'utf-16le',
  'UTF-16BE',
  'iso-8859-1',
  'latin1',
  'us-ascii',
  'windows-1252',
  'utf-32',
  'ucs-2',
  'shift_jis',
  'gb18030',
  'iso-2022-jp',
  'x-user-defined',
  'bogus',
  '""',
  'utf-8, utf-16',
);

export const hostValue = fc.oneof(
  fc.constantFrom(
    'example.org',
    'EXAMPLE.org:8443',
    '[::1]:8080',
    '[::1',
    'a_b.example',
    'x:99999',
    'x:0',
    'host:port',
    '',
    ' ',
    'a..b',
    '.',
    '-',
    '1.2.3.4.5',
    'x/y',
    'user@host',
    'x?y',
    'x#y',
    '%41',
    'a b',
    marker,
  ),
  printable(40),
);

/** Headers that change what the service reads about the request, but never its framing. */
export const extraHeader: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.tuple(fc.constant('Host'), hostValue),
  fc.tuple(
    fc.constant('X-Forwarded-For'),
    fc.oneof(fc.constantFrom('203.0.113.7', '203.0.113.7, 10.0.0.1', '::1', 'unknown', '', ',,,', '999.1.1.1', '10.0.0.1,'), printable(40)),
  ),
  fc.tuple(fc.constant('X-Forwarded-Proto'), fc.constantFrom('http', 'https', 'HTTPS', 'ftp', '', 'https, http', 'javascript', marker)),
  fc.tuple(fc.constant('X-Forwarded-Host'), hostValue),
  fc.tuple(fc.constant('X-Forwarded-Prefix'), fc.oneof(fc.constantFrom('/app', '/a/b/', '//x', `/${marker}`, '/%2e%2e', '', '/'), printable(30))),
  fc.tuple(fc.constant('X-Request-Id'), fc.oneof(printable(140), fc.constantFrom('abc-123', marker, ''))),
  fc.tuple(
    fc.constantFrom('Accept', 'Accept-Charset', 'Accept-Language', 'Accept-Encoding', 'User-Agent', 'Referer', 'Origin', 'X-Custom', 'Range', 'Authorization', 'If-None-Match', 'Pragma'),
    printable(60),
  ),
  fc.tuple(fc.constant('Cookie'), fc.oneof(fc.constantFrom('.ASPXAUTH=nope', '.ASPXAUTH=', 'a=b; .ASPXAUTH="x"', '.ASPXAUTH=%zz', 'signin-csrf=x'), printable(60))),
  fc.tuple(fc.constant('Content-Encoding'), fc.constantFrom('identity', 'gzip', 'deflate', 'br', 'x-unknown', 'gzip, identity', '')),
);

export const extraHeaders = fc.array(extraHeader, { maxLength: 4 });

/** Every method Node's parser accepts, but CONNECT (a tunnel, not a request). */
export const anyMethod = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('GET', 'POST') },
  { weight: 3, arbitrary: fc.constantFrom(...METHODS.filter((m) => m !== 'CONNECT')) },
);

// ---------------------------------------------------------------------------------------------------------
// SOAP envelopes

export interface EnvelopeShape {
  version: Version;
  operation: Operation;
  envelopePrefix: string;
  operationPrefix: string;
  declaration: string;
  schemaNamespaces: boolean;
  headerBlocks: string[];
  space: string;
  reversed: boolean;
  extras: string[];
  valueStyle: 'text' | 'cdata' | 'charrefs' | 'split';
  /** Parameter values by name; a missing name is left out of the envelope. */
  values: Record<string, string>;
  /** Elements to insert among the parameters as they are (duplicates, renamed or re-namespaced ones). */
  oddParameters: string[];
  envelopeNamespace?: string;
  operationNamespace?: string;
  operationName?: string;
  /** Attributes added to the Envelope (or the operation element) start tag, as they are. */
  envelopeAttributes: string;
  operationAttributes: string;
}


function encodeValue(value: string, style: EnvelopeShape['valueStyle']): string {
  switch (style) {
    case 'cdata':
      return value.includes(']]>') ? xmlText(value) : `<![CDATA[${value}]]>`;
    case 'charrefs':
      return [...value].map((c, i) => (i % 2 === 0 ? `&#x${(c.codePointAt(0) ?? 0).toString(16)};` : xmlText(c))).join('');
    case 'split': {
      const half = Math.floor(value.length / 2);
      return `${xmlText(value.slice(0, half))}<![CDATA[${value.slice(half).replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
    }
    default:
      return xmlText(value);
  }
}

export function serializeEnvelope(shape: EnvelopeShape, namespace: string): string {
  const envNs = shape.envelopeNamespace ?? SOAP_NS[shape.version];
  const e = shape.envelopePrefix ? `${shape.envelopePrefix}:` : '';
  const envDecl = shape.envelopePrefix ? `xmlns:${shape.envelopePrefix}="${envNs}"` : `xmlns="${envNs}"`;
  const schema = shape.schemaNamespaces ? ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"' : '';
  const opNs = shape.operationNamespace ?? namespace;
  const o = shape.operationPrefix ? `${shape.operationPrefix}:` : '';
  const opDecl = shape.operationPrefix ? `xmlns:${shape.operationPrefix}="${opNs}"` : `xmlns="${opNs}"`;
  const opName = shape.operationName ?? shape.operation;
  const s = shape.space;
  const names = [...PARAMETERS[shape.operation]];
  if (shape.reversed) names.reverse();
  const parameters = names
    .filter((name) => shape.values[name] !== undefined)
    .map((name) => `<${o}${name}>${encodeValue(shape.values[name] as string, shape.valueStyle)}</${o}${name}>`);
  const children = [...parameters];
  shape.extras.forEach((extra, i) => children.splice((i * 2) % (children.length + 1), 0, extra));
  shape.oddParameters.forEach((odd, i) => children.splice((i * 3 + 1) % (children.length + 1), 0, odd));
  const header = shape.headerBlocks.length > 0 ? `<${e}Header>${s}${shape.headerBlocks.join(s)}${s}</${e}Header>${s}` : '';
  return (
    `${shape.declaration}${shape.declaration ? s : ''}<${e}Envelope ${envDecl}${schema}${shape.envelopeAttributes}>${s}${header}` +
    `<${e}Body>${s}<${o}${opName} ${opDecl}${shape.operationAttributes}>${s}${children.join(s)}${s}</${o}${opName}>${s}</${e}Body>${s}</${e}Envelope>`
  );
}

const declaration = fc.constantFrom(
  '',
  '<?xml version="1.0"?>',
  '<?xml version="1.0" encoding="utf-8"?>',
  "<?xml version='1.0' encoding='UTF-8' standalone='yes'?>",
);
const space = fc.constantFrom('', '\n', '\r\n  ', '\t', ' ', '\n    ');
const harmlessHeaderBlock = fc.constantFrom(
  '<Trace xmlns="urn:unknown">x</Trace>',
  '<h:Session xmlns:h="urn:h" h:id="1"><h:Inner/></h:Session>',
  '<w:Security xmlns:w="urn:wss" xmlns:m="ENVNS" m:mustUnderstand="0"><w:Token>abc</w:Token></w:Security>',
  '<x:Ctx xmlns:x="urn:x" xmlns:m="ENVNS" m:mustUnderstand="false"/>',
);
const harmlessExtra = fc.constantFrom(
  '<extra1 xmlns="urn:other">x</extra1>',
  '<o:deep xmlns:o="urn:o"><o:er>y</o:er></o:deep>',
  '<!-- a comment -->',
  '<?processing instruction?>',
);

/** Envelopes every ASMX reads as a valid call of `operation`: spelling varies, meaning does not. */
export function validEnvelopeShape(credentials: Credentials): fc.Arbitrary<EnvelopeShape> {
  return fc
    .record({
      version: fc.constantFrom<Version>('1.1', '1.2'),
      operation: fc.constantFrom(...OPERATIONS),
      envelopePrefix: fc.constantFrom('soap', 'soap12', 's', 'SOAP-ENV', 'env', '', 'x1'),
      operationPrefix: fc.constantFrom('', '', 'tns', 'm', 'q1', 'soap'),
      declaration,
      schemaNamespaces: fc.boolean(),
      headerBlocks: fc.array(harmlessHeaderBlock, { maxLength: 2 }),
      space,
      reversed: fc.boolean(),
      extras: fc.array(harmlessExtra, { maxLength: 2 }),
      valueStyle: fc.constantFrom<EnvelopeShape['valueStyle']>('text', 'cdata', 'charrefs', 'split'),
    })
    .map((shape) => ({
      ...shape,
      // A prefix the operation element rebinds would also rename the Body around it.
      operationPrefix: shape.operationPrefix === shape.envelopePrefix && shape.operationPrefix !== '' ? 'tns' : shape.operationPrefix,
      headerBlocks: shape.headerBlocks.map((h) => h.replace('ENVNS', SOAP_NS[shape.version])),
      values: Object.fromEntries(PARAMETERS[shape.operation].map((name) => [name, credentials[name as keyof Credentials]])),
      oddParameters: [],
      envelopeAttributes: '',
      operationAttributes: '',
    }));
}

const parameterValue = (credentials: Credentials, name: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(credentials[name as keyof Credentials] ?? '') },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', credentials.token, credentials.loginCookie, marker, 'member-42') },
    { weight: 2, arbitrary: anyText(40) },
  );

const attributeFlood = fc.oneof(
  { weight: 8, arbitrary: fc.constant('') },
  {
    weight: 2,
    arbitrary: fc
      .record({ count: fc.integer({ min: 1, max: 4500 }), duplicate: fc.boolean(), prefixed: fc.boolean() })
      .map(({ count, duplicate, prefixed }) =>
        Array.from({ length: count }, (_, i) => ` ${prefixed ? 'xsi:' : ''}a${duplicate ? i % 7 : i}="v"`).join(''),
      ),
  },
);

/** A valid-looking shape with its parts re-namespaced, renamed, duplicated, dropped or given odd values. */
export function oddEnvelopeShape(credentials: Credentials): fc.Arbitrary<EnvelopeShape> {
  const ns = credentials.namespace;
  return validEnvelopeShape(credentials).chain((shape) =>
    fc
      .record({
        values: fc
          .record(
            Object.fromEntries(
              PARAMETERS[shape.operation].map((name) => [name, fc.option(parameterValue(credentials, name), { nil: undefined, freq: 8 })]),
            ) as Record<string, fc.Arbitrary<string | undefined>>,
          )
          .map((values) => Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Record<string, string>),
        headerBlocks: fc.array(
          fc.oneof(
            harmlessHeaderBlock.map((h) => h.replace('ENVNS', SOAP_NS[shape.version])),
            fc
              .record({ name: fc.constantFrom('Security', 'Action', 'To', 'x', 'token'), value: fc.constantFrom('1', 'true', ' 1 ', 'TRUE', '0', 'yes') })
              .map(({ name, value }) => `<${name} xmlns="urn:h" xmlns:m="${SOAP_NS[shape.version]}" m:mustUnderstand="${value}"/>`),
          ),
          { maxLength: 3 },
        ),
        oddParameters: fc.array(
          fc
            .record({
              name: fc.constantFrom('securityPassword', 'token', 'loginCookie', 'cookieDomain', 'Token', 'SECURITYPASSWORD', 'x', 'AuthenticateToken'),
              namespace: fc.constantFrom(undefined, ns, 'urn:other', '', ns.slice(0, -1)),
              value: anyText(20),
              nil: fc.boolean(),
              child: fc.boolean(),
            })
            .map(({ name, namespace, value, nil, child }) => {
              const nsDecl = namespace === undefined ? '' : ` xmlns="${namespace}"`;
              const nilAttr = nil ? ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true"' : '';
              return `<${name}${nsDecl}${nilAttr}>${child ? '<inner>x</inner>' : xmlText(value)}</${name}>`;
            }),
          { maxLength: 3 },
        ),
        envelopeNamespace: fc.oneof(
          { weight: 8, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom(SOAP_NS['1.1'], SOAP_NS['1.2'], 'http://schemas.xmlsoap.org/soap/envelope', 'urn:x', '') },
        ),
        operationNamespace: fc.oneof(
          { weight: 8, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom(ns.slice(0, -1), '', 'http://tempuri.org/', ns.toUpperCase(), 'urn:x') },
        ),
        operationName: fc.oneof(
          { weight: 8, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom('AuthenticateToken', 'AuthenticateCookie', 'authenticatetoken', 'Nope', 'AuthenticateTokenResponse', 'x:y') },
        ),
        envelopeAttributes: attributeFlood,
        operationAttributes: attributeFlood,
      })
      .map((odd) => ({ ...shape, ...odd })),
  );
}

export type Mutation =
  | { kind: 'flip'; at: number; byte: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'duplicate'; at: number; length: number }
  | { kind: 'rename'; from: string; to: string; all: boolean };

const SNIPPETS = [
  '<!DOCTYPE soap:Envelope [<!ENTITY e "value">]>',
  '<!DOCTYPE x SYSTEM "file:///etc/passwd">',
  '<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',
  '<!DOCTYPE x [<!ENTITY % p SYSTEM "http://127.0.0.1:1/x"> %p;]>',
  '<!ENTITY e "x">',
  '&e;',
  '&c;',
  '&amp;',
  '&#0;',
  '&#x110000;',
  '&#65;',
  '&#xD800;',
  '&bogus;',
  '&',
  '<![CDATA[x]]>',
  '<![CDATA[',
  ']]>',
  '<!-- c -->',
  '<!--',
  '-->',
  '<!-- -- -->',
  '<?pi data?>',
  '<?xml version="1.0"?>',
  '<?xml-stylesheet href="x"?>',
  '<',
  '>',
  '"',
  "'",
  '=',
  '/',
  ':',
  '</x>',
  '<x>',
  '<x/>',
  '<a:b>',
  ' xmlns="urn:x"',
  ' xmlns:soap="urn:y"',
  ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true"',
  '<soap:Body>',
  '</soap:Body>',
  '<soap:Header><h mustUnderstand="1"/></soap:Header>',
  '\u0000',
  '\u0001',
  '\uFEFF',
  '\uFFFE',
  '\uFFFF',
  '\uD800',
  '\r',
  '\u0085',
  '\u2028',
  'é',
  '😀',
  marker,
  '<a>'.repeat(3000),
  '<a/>'.repeat(3000),
  `<${'n'.repeat(5000)}>`,
  Array.from({ length: 500 }, (_, i) => ` xmlns:p${i}="urn:p${i}"`).join(''),
];

const NAMES = ['Envelope', 'Body', 'Header', 'AuthenticateToken', 'AuthenticateCookie', 'securityPassword', 'token', 'loginCookie', 'cookieDomain', 'soap:', 'xmlns', 'utf-8'];
const RENAMED = ['envelope', 'BODY', 'Header', 'Body', 'AuthenticateCookie', 'AuthenticateToken', 'Token', 'x', '', 'soap12:', 'tns:', 'xmlns:q', 'a b', 'utf-16', SOAP_NS['1.1'], SOAP_NS['1.2']];

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...SNIPPETS) }, anyText(12)) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 120 }) }),
  fc.record({
    kind: fc.constant('rename' as const),
    from: fc.constantFrom(...NAMES, SOAP_NS['1.1'], SOAP_NS['1.2']),
    to: fc.constantFrom(...RENAMED),
    all: fc.boolean(),
  }),
);

/** Text-level mutations first (they keep characters whole), then byte-level ones on the encoded body. */
export function applyTextMutations(text: string, mutations: readonly Mutation[]): string {
  let result = text;
  for (const m of mutations) {
    const at = 'at' in m ? m.at % (result.length + 1) : 0;
    if (m.kind === 'insert') result = result.slice(0, at) + m.text + result.slice(at);
    else if (m.kind === 'delete') result = result.slice(0, at) + result.slice(at + m.length);
    else if (m.kind === 'duplicate') result = result.slice(0, at + m.length) + result.slice(at, at + m.length) + result.slice(at + m.length);
    else if (m.kind === 'rename') result = m.all ? result.split(m.from).join(m.to) : result.replace(m.from, m.to);
  }
  return result;
}

export function applyByteMutations(bytes: Buffer, mutations: readonly Mutation[]): Buffer {
  let result = Buffer.from(bytes);
  for (const m of mutations) {
    if (m.kind === 'flip' && result.length > 0) result[m.at % result.length] = m.byte;
    else if (m.kind === 'truncate') result = result.subarray(0, m.at % (result.length + 1));
  }
  return result;
}

export type BodyEncoding = 'utf8' | 'utf8-bom' | 'utf16le' | 'utf16le-bom' | 'utf16be-bom' | 'latin1';
export const bodyEncoding = fc.oneof(
  { weight: 8, arbitrary: fc.constant<BodyEncoding>('utf8') },
  { weight: 2, arbitrary: fc.constantFrom<BodyEncoding>('utf8-bom', 'utf16le', 'utf16le-bom', 'utf16be-bom', 'latin1') },
);

export function encodeBody(text: string, encoding: BodyEncoding): Buffer {
  switch (encoding) {
    case 'utf8-bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'utf16le':
      return Buffer.from(text, 'utf16le');
    case 'utf16le-bom':
      return Buffer.from(`\uFEFF${text}`, 'utf16le');
    case 'utf16be-bom':
      return Buffer.from(`\uFEFF${text}`, 'utf16le').swap16();
    case 'latin1':
      return Buffer.from(text, 'latin1');
    default:
      return Buffer.from(text, 'utf8');
  }
}

/** Content-Type and SOAPAction for an envelope: mostly what its version wants, sometimes anything. */
export function soapHeaders(version: Version, operation: Operation, namespace: string): fc.Arbitrary<Array<[string, string]>> {
  const action = namespace + operation;
  const other = namespace + (operation === 'AuthenticateToken' ? 'AuthenticateCookie' : 'AuthenticateToken');
  const actionValue = fc.constantFrom(
    `"${action}"`,
    action,
    `"${other}"`,
    '""',
    '',
    `"${action.toLowerCase()}"`,
    `"${encodeURIComponent(action)}"`,
    `"${action.replace('Authenticate', 'Authenticate+')}"`,
    `"${marker}"`,
    `"${namespace}"`,
    '"',
    `"${action}", "${other}"`,
  );
  const coherent11: fc.Arbitrary<Array<[string, string]>> = fc
    .tuple(fc.constantFrom('text/xml; charset=utf-8', 'text/xml', 'text/xml;charset="utf-8"', 'text/xml; charset=UTF-8'), fc.constantFrom(`"${action}"`, action))
    .map(([type, soapAction]) => [
      ['Content-Type', type],
      ['SOAPAction', soapAction],
    ]);
  const coherent12: fc.Arbitrary<Array<[string, string]>> = fc
    .constantFrom('application/soap+xml; charset=utf-8', `application/soap+xml; charset=utf-8; action="${action}"`, 'application/soap+xml')
    .map((type) => [['Content-Type', type]]);
  const mediaType = fc.constantFrom(
    'text/xml',
    'application/soap+xml',
    'TEXT/XML',
    'Application/SOAP+XML',
    'application/xml',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json',
    'text/html',
    '*/*',
  );
  const contentType = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .record({ type: mediaType, charset: fc.option(charsetLabel, { nil: undefined }), action: fc.option(actionValue, { nil: undefined }) })
        .map(({ type, charset, action: a }) => `${type}${charset === undefined ? '' : `; charset=${charset}`}${a === undefined ? '' : `; action=${a}`}`),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        ';',
        'text/xml;',
        'text/xml; charset',
        'text/xml; charset=',
        'text/xml;;charset=utf-8',
        '=',
        'text/xml; charset="utf-8',
        'text/xml; charset=utf-8; charset=utf-16',
        'text/xml, application/soap+xml',
        '"text/xml"',
        'text /xml',
        `application/soap+xml; action=${action}`,
      ),
    },
    { weight: 1, arbitrary: printable(40) },
  );
  const anyHeaders: fc.Arbitrary<Array<[string, string]>> = fc
    .record({
      contentType: fc.option(contentType, { nil: undefined, freq: 6 }),
      soapActions: fc.array(actionValue, { maxLength: 2 }),
    })
    .map(({ contentType: type, soapActions }) => [
      ...(type === undefined ? [] : [['Content-Type', type] as [string, string]]),
      ...soapActions.map((a) => ['SOAPAction', a] as [string, string]),
    ]);
  return fc.oneof({ weight: 3, arbitrary: version === '1.1' ? coherent11 : coherent12 }, { weight: 2, arbitrary: anyHeaders });
}

// ---------------------------------------------------------------------------------------------------------
// Query strings and form bodies

const fieldName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('securityPassword', 'token', 'loginCookie', 'cookieDomain') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('SECURITYPASSWORD', 'Token', 'LOGINCOOKIE', 'wsdl', 'WSDL', 'disco', 'op', 'bnd', 'page', 'tab', 'ReturnUrl', '', 'token[]', 'securityPassword '),
  },
  { weight: 1, arbitrary: anyText(10) },
);

function fieldValue(credentials: Credentials): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(credentials.securityPassword, credentials.token, credentials.loginCookie, credentials.cookieDomain) },
    { weight: 1, arbitrary: fc.constantFrom('', marker, 'AuthenticateToken', 'AuthenticateCookie', 'AuthenticationSoap12', 'x,y') },
    { weight: 2, arbitrary: anyText(30) },
  );
}

/** Lone surrogates become U+FFFD, as encodeURIComponent and URLSearchParams need. */
const wellFormed = (text: string) => text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

type PairEncoding = 'component' | 'form' | 'raw' | 'broken';
const BROKEN_ESCAPES = ['%', '%2', '%zz', '%C3', '%FF', '%00', '%0D%0A', '%E0%A4%A', '%u0041', '%%'];

/** Only what a request target can carry: printable ASCII but space (percent-encoded otherwise). */
const targetSafe = (text: string) =>
  [...text].map((c) => (/^[\x21-\x7e]$/.test(c) ? c : encodeURIComponent(wellFormed(c)))).join('');

function encodePair([name, value]: [string, string], encoding: PairEncoding, brokenAt: number, broken: string): string {
  const component = (t: string) => encodeURIComponent(wellFormed(t));
  switch (encoding) {
    case 'form':
      return new URLSearchParams([[wellFormed(name), wellFormed(value)]]).toString();
    case 'raw':
      return `${name}=${value}`;
    case 'broken': {
      const pair = `${component(name)}=${component(value)}`;
      const at = brokenAt % (pair.length + 1);
      return pair.slice(0, at) + broken + pair.slice(at);
    }
    default:
      return `${component(name)}=${component(value)}`;
  }
}

/**
 * A query string or form body: mostly the operation's own fields with mostly right values, in any order,
 * letter case and encoding, among random ones; sometimes only random ones.
 */
export function fields(credentials: Credentials, operation?: Operation): fc.Arbitrary<string> {
  const encodedPair = (pair: fc.Arbitrary<[string, string]>) =>
    fc
      .record({
        pair,
        encoding: fc.constantFrom<PairEncoding>('component', 'component', 'component', 'form', 'form', 'raw', 'broken'),
        brokenAt: fc.nat(),
        broken: fc.constantFrom(...BROKEN_ESCAPES),
      })
      .map((p) => encodePair(p.pair, p.encoding, p.brokenAt, p.broken));
  const own = (operation === undefined ? fc.constantFrom<Operation>(...OPERATIONS) : fc.constant(operation)).chain((operation) =>
    fc.tuple(
      ...PARAMETERS[operation].map((name) =>
        fc.option(
          encodedPair(
            fc.tuple(
              fc.oneof({ weight: 8, arbitrary: fc.constant(name) }, { weight: 1, arbitrary: fc.constant(name.toUpperCase()) }, { weight: 1, arbitrary: fieldName }),
              fc.oneof({ weight: 6, arbitrary: fc.constant(credentials[name as keyof Credentials]) }, { weight: 1, arbitrary: fieldValue(credentials) }),
            ),
          ),
          { nil: undefined, freq: 8 },
        ),
      ),
    ),
  );
  return fc
    .record({
      own: fc.oneof({ weight: 4, arbitrary: own as fc.Arbitrary<Array<string | undefined>> }, { weight: 1, arbitrary: fc.constant<Array<string | undefined>>([]) }),
      others: fc.array(encodedPair(fc.tuple(fieldName, fieldValue(credentials))), { maxLength: 3 }),
      order: fc.nat(),
      separator: fc.constantFrom('&', '&', '&', '&', ';', '&&'),
      trailing: fc.constantFrom('', '', '', '&', '=', '&='),
    })
    .map(({ own: mine, others, order, separator, trailing }) => {
      const pairs = mine.filter((p): p is string => p !== undefined);
      others.forEach((other, i) => pairs.splice((order + i) % (pairs.length + 1), 0, other));
      if (order % 3 === 0) pairs.reverse();
      return pairs.join(separator) + trailing;
    });
}

/** A query string as a request target can carry it. */
export const asQuery = (text: string) => targetSafe(text);

/** The method name after "/Authentication.asmx/", as sent. */
export const methodSegment = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('AuthenticateToken', 'AuthenticateCookie') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'authenticatetoken',
      'AUTHENTICATECOOKIE',
      'Nope',
      '',
      'AuthenticateToken/',
      'AuthenticateToken/extra',
      '%41uthenticateToken',
      '%E0%A4%A',
      '%',
      '%zz',
      '%00',
      '..',
      '%2F',
      '%3Cx-fuzz%3E',
      'Authenticate%20Token',
      '%C3%A9',
      'AuthenticateToken;jsessionid=1',
      'AuthenticateToken%00',
      '<x-fuzz>',
    ),
  },
  { weight: 1, arbitrary: printable(20).map(targetSafe) },
);

export const endpointSpelling = fc.constantFrom('/Authentication.asmx', '/Authentication.asmx', '/authentication.asmx', '/AUTHENTICATION.ASMX');

// Not `/`: the site's root is the welcome page (src/signin/home-page.ts), not ASP.NET's 404.
export const otherPath = fc.constantFrom(
  '/default.aspx',
  '/Authentication.asmxx',
  '/Authentication.asm',
  '/x/Authentication.asmx',
  '/Authentication.asmx.bak',
  '//Authentication.asmx',
  '/Authentication.asmx%2FAuthenticateToken',
  '/%2e%2e/Authentication.asmx',
  '/Authentication.asmx;x',
  '/Authentication.asmx/',
  '/Authentication.asmx//AuthenticateToken',
  '/Authentication.asmx/AuthenticateToken/..',
  '*',
);
