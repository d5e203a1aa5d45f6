import { chromium, type Browser } from 'playwright-core';
import { describeRequiring, program } from './requirements.js';

/** Debian's chromium; tests never download a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Host names under this domain resolve to 127.0.0.1 inside the test browser. */
export const TEST_DOMAIN = 'example.test';

/** describe() for suites that need Chromium (test/helpers/requirements.ts: CI fails where it is missing). */
export function describeWithBrowser(name: string, suite: () => void): void {
  describeRequiring([program('Chromium', CHROMIUM_PATH, 'apt-get install chromium')], name, suite);
}

/** Chromium for an app's pages, opened at the service's login host on its port: that origin, and the browser. */
export async function browserOnPages(port: number): Promise<{ origin: string; browser: Browser }> {
  const origin = `http://login.${TEST_DOMAIN}:${port}`;
  return { origin, browser: await launchBrowser([origin]) };
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
