import { totpCode } from '../helpers/authenticator-app.js';
import { PAGE_ENV, PageClient } from '../helpers/page-client.js';
import { adaAndBobWithPassword, BOB } from '../helpers/reference-data.js';
import { confirmedFactor, STEP } from '../helpers/second-factor.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

export const PASSWORD = 'correct horse battery staple';

/**
 * The staff console's tests' app: a new one for each test (set up by the hooks this registers), on a clock the
 * tests move (`now`), with ada and bob, who have a password.
 */
export class ConsoleApp {
  app!: TestApp;
  now = 0;

  constructor() {
    beforeEach(async () => {
      this.now = Date.now();
      this.app = await startTestApp({ env: PAGE_ENV, clock: () => this.now });
      await adaAndBobWithPassword(this.app.services, PASSWORD);
    });
    afterEach(() => this.app.close());
  }

  /** Bob, staff in this role with a second factor, signed in with his password and a code. */
  async staffVisitor(role: 'support' | 'admin' = 'support'): Promise<PageClient> {
    await this.app.services.staff.grant(BOB.id, role);
    const { secret } = await confirmedFactor(this.app.services, BOB.id, this.now);
    this.now += STEP;
    const visitor = new PageClient(this.app.baseUrl);
    const done = await visitor.submit(await visitor.signIn('bob', PASSWORD), { code: totpCode(secret, this.now) });
    expect(done.status).toBe(303);
    return visitor;
  }
}
