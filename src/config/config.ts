import { ConfigError } from './config-error.js';
import { readConfigFile } from './config-file.js';
import { configFrom } from './config-from-settings.js';
import type { Config } from './config-type.js';
import { crossFieldProblems } from './cross-checks.js';
import { DEFAULT_OPERATIONS } from './operation-settings.js';
import { PROFILES } from './profiles.js';
import { DEFAULT_JSON_FIELDS } from './result-fields.js';
import { schema, type Environment } from './schema.js';
import { fileVariable, readSettingFiles, withFileVariables } from './setting-files.js';
import { describeSettings } from './settings.js';

// What the rest of the service imports from here: the Config it runs with, and how it is loaded.
export { ConfigError } from './config-error.js';
export { DEFAULT_SERVER_TIMEOUTS, type CallerThrottleConfig, type Config, type ServerTimeouts, type SigninConfig } from './config-type.js';
export type { ProxyTrust } from './proxy-trust.js';
export type { Environment } from './schema.js';

/** Validates the settings once; throws ConfigError listing every problem, one per line. */
export function loadConfig(env: Environment = process.env): Config {
  const fromFile = env.CONFIG_FILE ? readConfigFile(env.CONFIG_FILE) : {};
  const names = withFileVariables(Object.keys(schema.shape));
  const given: Environment = {};
  for (const key of names) {
    const value = env[key] !== undefined && env[key] !== '' ? env[key] : fromFile[key];
    if (value !== undefined && value !== '') given[key] = value;
  }
  const files = readSettingFiles(given);
  const profile = schema.shape.PROFILE.safeParse(given.PROFILE);
  const implied: Environment = profile.success && profile.data ? PROFILES[profile.data] : {};
  const merged: Environment = { ...implied, ...given, ...files.values };
  const result = schema.safeParse(merged);
  // A value read from a file is named with the file, so that the operator knows where to look.
  const label = (name: string) => (Object.hasOwn(files.paths, name) ? `${name} (from ${fileVariable(name)} ${files.paths[name]})` : name);
  const problems = [
    ...files.problems,
    ...(result.success ? [] : result.error.issues.map((issue) => `${label(issue.path.join('.'))}: ${issue.message}`)),
    ...crossFieldProblems(merged, env.NODE_ENV),
  ];
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  const s = result.data;
  const settings = describeSettings(names, {
    source: (key) => {
      if (Object.hasOwn(files.paths, key)) return fileVariable(key);
      if (given[key] !== undefined) return env[key] === given[key] ? 'environment' : 'file';
      return key in implied ? 'profile' : 'default';
    },
    given: merged,
    parsed: s,
    // Defaults that are parsed like given values are shown as written.
    defaults: { OPERATIONS: DEFAULT_OPERATIONS, JSON_FIELDS: DEFAULT_JSON_FIELDS },
  });
  return configFrom(s, settings, merged.TRUST_PROXY ?? 'false');
}
