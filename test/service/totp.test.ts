/**
 * The TOTP wrapper (src/service/totp.ts) against RFC 6238's own test vectors, and what it accepts as a code;
 * and the authenticator app of the tests (test/helpers/authenticator-app.ts), which reads its settings from
 * the set-up URI, against the same vectors.
 */
import { matchingStep, newTotpSecret, totpStep, totpUri } from '../../src/service/totp.js';
import { totpCode } from '../helpers/authenticator-app.js';

/** RFC 6238 Appendix B's SHA-1 key: the ASCII "12345678901234567890", in base32. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('RFC 6238 Appendix B (SHA-1, 8 digits, 30-second steps)', () => {
  it('has the key in base32', () => {
    const base32 = Buffer.from('12345678901234567890', 'ascii');
    // RFC 4648 base32 of the 20 ASCII bytes, computed here so the constant above is not taken on trust.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
    const bits = [...base32].map((byte) => byte.toString(2).padStart(8, '0')).join('');
    const encoded = (bits.match(/.{1,5}/g) ?? []).map((group) => alphabet[parseInt(group.padEnd(5, '0'), 2)]).join('');
    expect(encoded).toBe(RFC_SECRET);
  });

  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ])('T = %i s gives %s', (seconds, code) => {
    expect(totpCode(RFC_SECRET, seconds * 1000, 8)).toBe(code);
  });

  it('has six digits by default: the last six of the eight', () => {
    expect(totpCode(RFC_SECRET, 59_000)).toBe('287082');
    expect(totpCode(RFC_SECRET, 1111111109_000)).toBe('081804');
  });

  it.each([
    [59, '287082'],
    [1111111109, '081804'],
    [1234567890, '005924'],
    [2000000000, '279037'],
  ])('the service accepts at T = %i s the code %s (the last six digits), in its own step', (seconds, code) => {
    expect(matchingStep(RFC_SECRET, code, seconds * 1000)).toBe(totpStep(seconds * 1000));
  });
});

describe('totpStep', () => {
  it('is the 30-second step a moment falls in', () => {
    expect(totpStep(0)).toBe(0);
    expect(totpStep(29_999)).toBe(0);
    expect(totpStep(30_000)).toBe(1);
    expect(totpStep(59_000)).toBe(1);
    expect(totpStep(1111111109_000)).toBe(37037036);
  });
});

describe('matchingStep', () => {
  // A fixed secret and moment, in the middle of a step so that neither neighbour is reached by rounding: the
  // codes below are then known, and none of the far steps' codes happens to equal one inside the window.
  const secret = RFC_SECRET;
  const now = 1_767_225_600_000 + 15_000;
  const step = totpStep(now);
  const codeAt = (offsetSteps: number) => totpCode(secret, now + offsetSteps * 30_000);

  it('has seven different codes around the moment (the premise of the tests below)', () => {
    expect(new Set([-3, -2, -1, 0, 1, 2, 3].map(codeAt)).size).toBe(7);
  });

  it("accepts the current step's code, and the previous and next step's, with their step", () => {
    expect(matchingStep(secret, codeAt(0), now)).toBe(step);
    expect(matchingStep(secret, codeAt(-1), now)).toBe(step - 1);
    expect(matchingStep(secret, codeAt(1), now)).toBe(step + 1);
  });

  it('refuses the codes of steps further away', () => {
    for (const offset of [-3, -2, 2, 3]) expect(matchingStep(secret, codeAt(offset), now)).toBeNull();
  });

  it("refuses another secret's code", () => {
    const other = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const code = totpCode(other, now);
    expect([-1, 0, 1].map(codeAt)).not.toContain(code);
    expect(matchingStep(secret, code, now)).toBeNull();
  });

  it('ignores spaces typed between the groups and around the code', () => {
    const code = codeAt(0);
    expect(matchingStep(secret, `${code.slice(0, 3)} ${code.slice(3)}`, now)).toBe(step);
    expect(matchingStep(secret, ` ${code}\t`, now)).toBe(step);
  });

  it('refuses anything but six digits', () => {
    const code = codeAt(0);
    expect(matchingStep(secret, '', now)).toBeNull();
    expect(matchingStep(secret, code.slice(0, 5), now)).toBeNull();
    expect(matchingStep(secret, `${code}0`, now)).toBeNull();
    expect(matchingStep(secret, totpCode(secret, now, 8), now)).toBeNull();
    expect(matchingStep(secret, `${code.slice(0, 3)}-${code.slice(3)}`, now)).toBeNull();
    expect(matchingStep(secret, `${code.slice(0, 5)}a`, now)).toBeNull();
    expect(matchingStep(secret, 'abcdef', now)).toBeNull();
    expect(matchingStep(secret, code.replace(/\d/, '\uff11'), now)).toBeNull();
  });
});

describe('newTotpSecret', () => {
  it('is 160 bits in base32, and new each time', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
  });
});

describe('totpUri', () => {
  it('is an otpauth://totp URI with the issuer, the account, SHA1, 6 digits and 30 seconds', () => {
    const secret = newTotpSecret();
    const uri = new URL(totpUri(secret, 'The Society', 'ada@example.org'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/The Society:ada@example.org');
    expect(uri.searchParams.get('issuer')).toBe('The Society');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('algorithm')).toBe('SHA1');
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
  });
});
