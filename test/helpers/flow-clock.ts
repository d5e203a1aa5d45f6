import { totpCode } from './authenticator-app.js';
import { REFERENCE } from './reference-data.js';
import { STEP } from './second-factor.js';
import type { TestApp } from './test-app.js';

/**
 * The clock of an app a flow test drives: real time, run ahead by `skew`. Each code of the member's authenticator
 * app moves it a step further, as time would, so that no code is refused as one used before.
 */
export class FlowClock {
  skew = 0;
  readonly now = (): number => Date.now() + this.skew;

  /** Gives ada a confirmed second factor; returns the code of the service's next moment. */
  async enrol(app: TestApp): Promise<() => string> {
    const { secret } = await app.services.secondFactor.beginSetup(REFERENCE.memberId, 'ada@example.org');
    await app.services.secondFactor.confirmSetup(REFERENCE.memberId, totpCode(secret, this.now()));
    return () => {
      this.skew += STEP;
      return totpCode(secret, this.now());
    };
  }
}
