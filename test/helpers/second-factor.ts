import type { Services } from '../../src/service/index.js';
import { totpCode } from './authenticator-app.js';

/** A TOTP code's step. */
export const STEP = 30_000;

/** Sets up and confirms a member's factor with the code of `now`: its secret and recovery codes. */
export async function confirmedFactor(services: Services, memberId: string, now: number): Promise<{ secret: string; recoveryCodes: string[] }> {
  const { secret } = await services.secondFactor.beginSetup(memberId, 'ada@example.org');
  const recoveryCodes = await services.secondFactor.confirmSetup(memberId, totpCode(secret, now));
  if (!recoveryCodes) throw new Error('the set-up was not confirmed');
  return { secret, recoveryCodes };
}

/** A six-digit code that is not the right one at `now`, nor in the window of a step either side. */
export function wrongCode(secret: string, now: number): string {
  const near = [-1, 0, 1].map((offset) => totpCode(secret, now + offset * STEP));
  for (let n = 0; ; n += 1) {
    const candidate = String(n).padStart(6, '0');
    if (!near.includes(candidate)) return candidate;
  }
}
