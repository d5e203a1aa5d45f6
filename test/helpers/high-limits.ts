import { loadConfig, type Environment } from '../../src/config/config.js';

/**
 * Throttle settings as high as the configuration accepts, for tests whose traffic all comes from 127.0.0.1
 * and that send many wrong passwords on purpose (fuzzing, soak). A setting the configuration does not know
 * (yet) is ignored by loadConfig, so naming it is harmless.
 */
const LIMITS: Array<[string, string[]]> = [
  ['SIGNIN_MAX_FAILURES_PER_ACCOUNT', ['1000000', '100000', '10000', '1000']],
  ['SIGNIN_MAX_FAILURES_PER_ADDRESS', ['1000000', '100000', '10000', '1000']],
  ['CALLER_MAX_FAILURES_PER_ADDRESS', ['1000000', '100000', '10000', '1000']],
];

export function highThrottleLimits(): Environment {
  const env: Environment = {};
  for (const [name, candidates] of LIMITS) {
    const accepted = candidates.find((value) => {
      try {
        loadConfig({ [name]: value });
        return true;
      } catch {
        return false;
      }
    });
    if (accepted !== undefined) env[name] = accepted;
  }
  return env;
}
