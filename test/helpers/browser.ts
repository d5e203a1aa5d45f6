import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium; tests never download a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Host names under this domain resolve to 127.0.0.1 inside the test browser. */
export const TEST_DOMAIN = 'example.test';

/**
 * describe() for suites that need Chromium. Where it is missing, CI (CI=true) fails loudly instead of
 * skipping; a developer's machine skips with a warning.
 */
export function describeWithBrowser(name: string, suite: () => void): void {
  if (existsSync(CHROMIUM_PATH)) return describe(name, suite);
  if (process.env.CI) {
    return describe(name, () => {
      test('Chromium is installed', () => {
        throw new Error(`${CHROMIUM_PATH} is missing: CI must install Debian's chromium package`);
      });
    });
  }
  console.warn(`skipping "${name}": ${CHROMIUM_PATH} is missing (apt-get install chromium)`);
  describe.skip(name, suite);
}

/**
 * Headless Chromium with every *.example.test host mapped to loopback. The given http origins count as
 * secure, so that Secure cookies behave as they would over HTTPS.
 */
export function launchBrowser(secureOrigins: string[]): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--host-resolver-rules=MAP *.${TEST_DOMAIN} 127.0.0.1`,
      `--unsafely-treat-insecure-origin-as-secure=${secureOrigins.join(',')}`,
    ],
  });
}
