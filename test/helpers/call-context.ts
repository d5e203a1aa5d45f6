import type { CallContext } from '../../src/service/authentication.js';

/** The client address a test's calls come from unless it says otherwise. */
export const TEST_CLIENT_ADDRESS = '192.0.2.10';
/** The domain sessions created by a test's calls are for unless it says otherwise. */
export const TEST_COOKIE_DOMAIN = 'example.org';

/** What a binding would know of a call: from this address, creating sessions for this domain. */
export function callContext(clientAddress: string = TEST_CLIENT_ADDRESS, cookieDomain: string = TEST_COOKIE_DOMAIN): CallContext {
  return { clientAddress, cookieDomain: () => cookieDomain };
}

/** The context of most tests' calls. */
export const CALL: CallContext = callContext();
