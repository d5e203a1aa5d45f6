import { TOTP, URI } from 'otpauth';
import { totpUri } from '../../src/service/totp.js';

/**
 * The code an authenticator app shows for a secret at a moment, as the member's app computes it: from the
 * otpauth:// URI the set-up page offers (its algorithm, digits and period), not from the service's own
 * check. `digits` overrides the URI's, for RFC 6238's eight-digit test vectors.
 */
export function totpCode(secret: string, nowMs: number, digits?: number): string {
  const app = URI.parse(totpUri(secret, 'issuer', 'member'));
  if (!(app instanceof TOTP)) throw new Error('the set-up URI is not a TOTP one');
  return TOTP.generate({ secret: app.secret, algorithm: app.algorithm, digits: digits ?? app.digits, period: app.period, timestamp: nowMs });
}
