import { SECRET_SETTINGS } from './secrets.js';

/**
 * Where a setting's value came from: the environment, CONFIG_FILE, PROFILE, its default, or (a secret) the file
 * that its <NAME>_FILE variable names.
 */
export type SettingSource = 'environment' | 'file' | 'profile' | 'default' | `${string}_FILE`;

/** A setting as the start-up log and `config show` print it. */
export interface Setting {
  readonly name: string;
  /** As given, or the default as the service reads it; '' when unset. Secrets are masked. */
  readonly value: string;
  readonly source: SettingSource;
}

function shown(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(shown).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Every setting by name, in the schema's order, with its value as given (or as parsed, for a default). */
export function describeSettings(
  names: readonly string[],
  options: {
    source: (name: string) => SettingSource;
    given: Readonly<Record<string, string | undefined>>;
    parsed: Readonly<Record<string, unknown>>;
    /** Defaults written as text, for the settings whose parsed value does not read back as one. */
    defaults: Readonly<Record<string, string>>;
  },
): Setting[] {
  return names.map((name) => {
    const source = options.source(name);
    const raw = source === 'default' ? (options.defaults[name] ?? shown(options.parsed[name])) : (options.given[name] ?? '');
    const mask = SECRET_SETTINGS[name];
    return Object.freeze({ name, value: raw !== '' && mask ? mask(raw) : raw, source });
  });
}

/** A long value cut to `max` characters, ending in an ellipsis, so that a list of settings stays readable. */
export const shortened = (value: string, max: number): string => (value.length > max ? `${value.slice(0, max - 1)}…` : value);

/** How much of each value the start-up summary shows (`config show` has them whole with --json). */
const SUMMARY_VALUE_LENGTH = 40;

/**
 * The settings given (in the environment, CONFIG_FILE or a secret's file), as NAME=value with long values
 * shortened: what differs from the defaults, besides what the profile sets, which its name sums up.
 */
export function givenSettings(settings: readonly Setting[]): string[] {
  return settings
    .filter(({ source }) => source !== 'default' && source !== 'profile')
    .map(({ name, value }) => `${name}=${shortened(value, SUMMARY_VALUE_LENGTH)}`);
}
