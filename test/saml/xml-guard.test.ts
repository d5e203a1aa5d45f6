import { guardXml, MESSAGE_BOUNDS, METADATA_BOUNDS, type XmlBounds } from '../../src/saml/xml-guard.js';

/** The guard every inbound SAML document passes before any other parser sees it. */

const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
const message = (inner = '', attributes = '') => `<samlp:LogoutRequest xmlns:samlp="${SAMLP}" ID="_1"${attributes}>${inner}</samlp:LogoutRequest>`;
const SMALL: XmlBounds = { maxLength: 1000, maxDepth: 3, maxElements: 5, maxAttributes: 3, maxDocumentAttributes: 6 };

test('a message, with an XML declaration and CDATA: its root element', () => {
  expect(guardXml(`<?xml version="1.0" encoding="UTF-8"?>\n${message('<x><![CDATA[a<b]]></x>')}`, MESSAGE_BOUNDS)).toEqual({ ok: true, root: { local: 'LogoutRequest', ns: SAMLP } });
});

test.each([
  ['a DTD', `<!DOCTYPE x>${message()}`, 'a DTD'],
  ['an internal entity', `<!DOCTYPE x [<!ENTITY e "v">]>${message('&e;')}`, 'a DTD'],
  ['an external entity', `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${message('&e;')}`, 'a DTD'],
  ['a comment', message('<n>a<!-- -->b</n>'), 'a comment'],
  ['a processing instruction', message('<?php x?>'), 'a processing instruction'],
  ['an ID held by two elements', message('<a ID="_1"/>'), 'an ID held by two elements'],
  ['an ID repeated as Id', message('<a Id="_1"/>'), 'an ID held by two elements'],
  ['an ID repeated as id', message('<a id="_1"/>'), 'an ID held by two elements'],
])('refuses %s', (_, xml, reason) => {
  expect(guardXml(xml, MESSAGE_BOUNDS)).toEqual({ ok: false, reason });
});

test('an ID attribute in a namespace is not an ID (xml-crypto refuses a document where one repeats an ID)', () => {
  expect(guardXml(message('<a xmlns:x="urn:x" x:ID="_1"/>'), MESSAGE_BOUNDS)).toMatchObject({ ok: true });
});

test.each([
  ['malformed', '<a><b></a>', /^not well-formed XML \(.+\)$/],
  ['unclosed', '<a>', /^not well-formed XML/],
  ['an unbound prefix', '<x:a/>', /^not well-formed XML/],
  ['text only', 'hello', /^not well-formed XML/],
  ['empty', '', /^not well-formed XML \(document must contain a root element\.\)$/],
])('refuses XML that is %s', (_, xml, reason) => {
  expect(guardXml(xml, MESSAGE_BOUNDS)).toEqual({ ok: false, reason: expect.stringMatching(reason) });
});

test.each([
  ['longer than the bound', `<a>${'x'.repeat(1000)}</a>`, 'longer than 1000 characters'],
  ['nested deeper', '<a><b><c><d/></c></b></a>', 'elements nested deeper than 3'],
  ['with more elements', '<a><b/><b/><b/><b/><b/></a>', 'more than 5 elements'],
  ['with an element of more attributes', '<a p="1" q="2" r="3" s="4"/>', 'an element with more than 3 attributes'],
  ['with more attributes in all', '<a p="1" q="2" r="3"><b p="1" q="2" r="3"/><c p="1"/></a>', 'more than 6 attributes'],
  ['with a long element name', `<${'a'.repeat(257)}/>`, 'a name longer than 256 characters'],
  ['with a long attribute name', `<a ${'p'.repeat(257)}="1"/>`, 'a name longer than 256 characters'],
])('refuses a document %s', (_, xml, reason) => {
  expect(guardXml(xml, SMALL)).toEqual({ ok: false, reason });
});

test('takes a document exactly at each bound', () => {
  expect(guardXml('<a p="1" q="2" r="3"><b p="1" q="2" r="3"><c/></b><d/><e/></a>', SMALL)).toEqual({ ok: true, root: { local: 'a', ns: '' } });
});

test('metadata bounds are wider than a message\'s in every respect', () => {
  for (const key of Object.keys(MESSAGE_BOUNDS) as (keyof XmlBounds)[]) expect(METADATA_BOUNDS[key]).toBeGreaterThan(MESSAGE_BOUNDS[key]);
});
