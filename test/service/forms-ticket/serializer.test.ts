/**
 * The ticket's bytes (src/service/forms-ticket/serializer.ts): the layout of FormsAuthenticationTicketSerializer,
 * written out by hand here from its documented format, what Deserialize refuses, and that any ticket goes
 * through and back unchanged. The bytes of real .NET tickets are compared in dotnet-vectors.test.ts.
 */
import { deserializeTicket, serializeTicket, type FormsTicket } from '../../../src/service/forms-ticket/serializer.js';
import { MAX_TICKS } from '../../../src/service/forms-ticket/ticks.js';
import { fc } from '../../helpers/seeded-fast-check.js';

const TICKET: FormsTicket = {
  version: 2,
  name: 'A',
  issueTicks: 0x0102030405060708n,
  expirationTicks: 0x0a0b0c0d0e0f1011n,
  isPersistent: true,
  userData: '',
  cookiePath: '/',
};

/** TICKET as the format lays it out, field by field. */
const TICKET_HEX = [
  '01', // serialized format version
  '02', // ticket version
  '0807060504030201', // issue date ticks, int64 little-endian
  'fe', // spacer
  '11100f0e0d0c0b0a', // expiration ticks
  '01', // persistent
  '01' + '4100', // name: one code unit, "A"
  '00', // user data: empty
  '01' + '2f00', // cookie path: "/"
  'ff', // footer
].join('');

/** Any UTF-16 code unit, lone surrogates included: .NET strings may hold them. */
const codeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)), maxLength: 40 });
const ticks = fc.bigInt({ min: 0n, max: MAX_TICKS });
const tickets: fc.Arbitrary<FormsTicket> = fc.record({
  version: fc.integer({ min: 0, max: 255 }),
  name: codeUnits,
  issueTicks: ticks,
  expirationTicks: ticks,
  isPersistent: fc.boolean(),
  userData: codeUnits,
  cookiePath: codeUnits,
});

const withByte = (hex: string, offset: number, byte: string) => hex.slice(0, offset * 2) + byte + hex.slice(offset * 2 + 2);

describe('serializeTicket', () => {
  it('lays the ticket out as FormsAuthenticationTicketSerializer does', () => {
    expect(serializeTicket(TICKET).toString('hex')).toBe(TICKET_HEX);
  });

  it('counts UTF-16 code units, 7 bits a byte, and writes them little-endian', () => {
    const bytes = serializeTicket({ ...TICKET, name: 'x'.repeat(200), userData: '€', cookiePath: '\ud801\udc37' });
    const strings = bytes.subarray(20, bytes.length - 1).toString('hex');
    expect(strings).toBe('c801' + '7800'.repeat(200) + '01' + 'ac20' + '02' + '01d837dc');
  });

  it.each([
    ['a version above a byte', { version: 256 }],
    ['a negative version', { version: -1 }],
    ['a fractional version', { version: 1.5 }],
    ['ticks before the year 1', { issueTicks: -1n }],
    ['ticks after 9999', { expirationTicks: MAX_TICKS + 1n }],
  ])('refuses %s', (_case, change) => {
    expect(() => serializeTicket({ ...TICKET, ...change })).toThrow(RangeError);
  });
});

describe('deserializeTicket', () => {
  it('reads the layout back', () => {
    expect(deserializeTicket(Buffer.from(TICKET_HEX, 'hex'))).toEqual(TICKET);
  });

  it('reads a non-persistent ticket and the largest dates', () => {
    const ticket = { ...TICKET, isPersistent: false, issueTicks: 0n, expirationTicks: MAX_TICKS };
    expect(deserializeTicket(serializeTicket(ticket))).toEqual(ticket);
  });

  it.each([
    ['another serialized format version', withByte(TICKET_HEX, 0, '02')],
    ['another spacer', withByte(TICKET_HEX, 10, 'fd')],
    ['a persistence byte other than 0 or 1', withByte(TICKET_HEX, 19, '02')],
    ['another footer', withByte(TICKET_HEX, TICKET_HEX.length / 2 - 1, 'fe')],
    ['a byte after the footer', TICKET_HEX + '00'],
    ['issue ticks below zero', TICKET_HEX.slice(0, 4) + 'ffffffffffffffff' + TICKET_HEX.slice(20)],
    ['expiration ticks past 9999', TICKET_HEX.slice(0, 22) + 'ffffffffffffff7f' + TICKET_HEX.slice(38)],
    ['a name longer than the bytes left', withByte(TICKET_HEX, 20, '05')],
    ['a length whose 32 bits are negative (2^31)', TICKET_HEX.slice(0, 40) + '8080808008' + TICKET_HEX.slice(42)],
    ['a length of 2^31 - 1', TICKET_HEX.slice(0, 40) + 'ffffffff07' + TICKET_HEX.slice(42)],
    ['a length that goes on past five bytes', TICKET_HEX.slice(0, 40) + '8080808080' + TICKET_HEX.slice(42)],
    ['no bytes', ''],
  ])('refuses %s', (_case, hex) => {
    expect(deserializeTicket(Buffer.from(hex, 'hex'))).toBeUndefined();
  });

  it('refuses every truncation', () => {
    const bytes = Buffer.from(TICKET_HEX, 'hex');
    for (let length = 0; length < bytes.length; length++) expect(deserializeTicket(bytes.subarray(0, length))).toBeUndefined();
  });

  it('reads a length written with more bytes than needed, as BinaryReader does', () => {
    const padded = TICKET_HEX.slice(0, 40) + '8100' + TICKET_HEX.slice(42);
    expect(deserializeTicket(Buffer.from(padded, 'hex'))).toEqual(TICKET);
  });
});

describe('properties', () => {
  it('any ticket goes through and back unchanged, lone surrogates and all', () => {
    fc.assert(fc.property(tickets, (ticket) => expect(deserializeTicket(serializeTicket(ticket))).toEqual(ticket)));
  });

  it('any bytes are a ticket or refused, never an exception', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const ticket = deserializeTicket(Buffer.from(bytes));
        if (ticket !== undefined) expect(deserializeTicket(serializeTicket(ticket))).toEqual(ticket);
      }),
    );
  });

  it('any change of one byte of a ticket is refused or read as another ticket', () => {
    fc.assert(
      fc.property(tickets, fc.nat(), fc.integer({ min: 1, max: 255 }), (ticket, at, xor) => {
        const bytes = serializeTicket(ticket);
        const offset = at % bytes.length;
        bytes[offset] = (bytes[offset] ?? 0) ^ xor;
        expect(deserializeTicket(bytes)).not.toEqual(ticket);
      }),
    );
  });
});
