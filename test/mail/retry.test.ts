/** The back-off between attempts, what counts as a permanent refusal, and the recipient as the log shows it. */
import { maskedAddress } from '../../src/mail/masked-address.js';
import { DEFAULT_RETRY, deliveryFailure, retryDelay, type RetryPolicy } from '../../src/mail/retry.js';

const POLICY: RetryPolicy = { firstDelayMs: 1_000, maxDelayMs: 30_000, maxAgeMs: 3_600_000, jitter: 0.5 };

test('the wait doubles after each failed attempt, up to the cap', () => {
  const noJitter = () => 0;
  expect([1, 2, 3, 4, 5, 6, 7, 50, 2_000].map((attempt) => retryDelay(attempt, POLICY, noJitter))).toEqual([
    1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000,
  ]);
});

test('jitter takes up to its share off the wait', () => {
  expect(retryDelay(3, POLICY, () => 0.5)).toBe(3_000);
  expect(retryDelay(3, POLICY, () => 0.999)).toBe(2_002);
  expect(retryDelay(3, { ...POLICY, jitter: 0 }, () => 0.999)).toBe(4_000);
});

test('the default policy retries within seconds, waits at most 10 minutes, for a day', () => {
  expect(DEFAULT_RETRY).toEqual({ firstDelayMs: 5_000, maxDelayMs: 600_000, maxAgeMs: 86_400_000, jitter: 0.5 });
});

describe('permanent or not', () => {
  const smtpError = (code: string, responseCode: number, permanent: boolean) =>
    Object.assign(new Error(`${responseCode} the server's own words about ada@example.org`), { code, responseCode, permanent, response: 'secret words' });

  test('a 5xx reply is permanent, a 4xx reply is not; the failure keeps the codes, not the words', () => {
    expect(deliveryFailure(smtpError('EENVELOPE', 550, true))).toEqual({ permanent: true, code: 'EENVELOPE', smtpCode: 550, cause: undefined });
    expect(deliveryFailure(smtpError('EENVELOPE', 451, false))).toEqual({ permanent: false, code: 'EENVELOPE', smtpCode: 451, cause: undefined });
    expect(deliveryFailure(smtpError('EAUTH', 454, false)).permanent).toBe(false);
    expect(deliveryFailure(smtpError('EAUTH', 535, true)).permanent).toBe(true);
  });

  test('a refused or dropped connection, a time-out or a TLS failure is not permanent', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:25'), { code: 'ESOCKET', originalCode: 'ECONNREFUSED' });
    expect(deliveryFailure(refused)).toEqual({ permanent: false, code: 'ESOCKET', smtpCode: undefined, cause: 'ECONNREFUSED' });
    for (const code of ['ECONNECTION', 'ETIMEDOUT', 'EDNS', 'ETLS', 'EPROTOCOL']) {
      expect(deliveryFailure(Object.assign(new Error(code), { code })).permanent).toBe(false);
    }
  });

  test('what nodemailer refuses before reaching a server is permanent: another attempt would fail alike', () => {
    for (const code of ['EENVELOPE', 'EMESSAGE', 'ECONFIG', 'ENOAUTH', 'ESTREAM']) {
      expect(deliveryFailure(Object.assign(new Error(code), { code })).permanent).toBe(true);
    }
  });

  test('an error of unknown shape is tried again', () => {
    expect(deliveryFailure(new Error('something'))).toEqual({ permanent: false, code: undefined, smtpCode: undefined, cause: undefined });
    expect(deliveryFailure('a string')).toEqual({ permanent: false, code: undefined, smtpCode: undefined, cause: undefined });
  });
});

test.each([
  ['ada.lovelace@example.org', 'a…@example.org'],
  ['a@example.org', 'a…@example.org'],
  ['😀x@example.org', '😀…@example.org'],
  ['"odd@local"@example.org', '"…@example.org'],
  ['no-at-sign', '…'],
  ['@example.org', '…'],
])('%s is logged as %s', (address, masked) => {
  expect(maskedAddress(address)).toBe(masked);
});
