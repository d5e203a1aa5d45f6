import { ConfigError, loadConfig, type Environment } from '../../src/config/config.js';

/** The problems loadConfig lists for `env`; fails the test when it throws anything but a ConfigError, or nothing. */
export function problemsOf(env: Environment): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}
