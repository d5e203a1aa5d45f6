import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as authenticator apps expect it: HMAC-SHA-1, 6 digits, 30-second steps. */
const PERIOD_SECONDS = 30;
const DIGITS = 6;
const ALGORITHM = 'SHA1';
/** A code of the step before or after the current one is also accepted: clocks and typing are not instant. */
const WINDOW = 1;
/** 160 bits, the HMAC-SHA-1 key size RFC 4226 recommends. */
const SECRET_BYTES = 20;

/** A new secret, in base32 as authenticator apps take it typed in. */
export function newTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

/** The otpauth:// URI a QR code carries: the app shows the issuer and the account. */
export function totpUri(secret: string, issuer: string, account: string): string {
  return new TOTP({ issuer, label: account, secret: Secret.fromBase32(secret), algorithm: ALGORITHM, digits: DIGITS, period: PERIOD_SECONDS }).toString();
}

/** The time step a moment falls in. */
export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / PERIOD_SECONDS);
}

/**
 * The time step whose code this is, within the window around now, or null. Only six digits are looked at;
 * spaces people type between the groups are ignored.
 */
export function matchingStep(secret: string, code: string, nowMs: number): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = TOTP.validate({ token, secret: Secret.fromBase32(secret), algorithm: ALGORITHM, digits: DIGITS, period: PERIOD_SECONDS, timestamp: nowMs, window: WINDOW });
  return delta === null ? null : totpStep(nowMs) + delta;
}
