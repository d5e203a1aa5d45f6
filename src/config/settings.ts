/** Where a setting's value came from: the environment, CONFIG_FILE, PROFILE, or its default. */
export type SettingSource = 'environment' | 'file' | 'profile' | 'default';

/** A setting as the start-up log and `config show` print it. */
export interface Setting {
  readonly name: string;
  /** As given, or the default as the service reads it; '' when unset. Secrets are masked. */
  readonly value: string;
  readonly source: SettingSource;
}

const HIDDEN = '(hidden)';

/** A database URL without its password, in the user part or in the query (libpq reads both). */
function maskedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    if (parsed.search) parsed.search = '?***';
    return parsed.toString();
  } catch {
    return HIDDEN;
  }
}

const MASKS: Readonly<Record<string, (value: string) => string>> = {
  SECRET_KEY: () => HIDDEN,
  DATABASE_URL: maskedUrl,
};

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
    const mask = MASKS[name];
    return Object.freeze({ name, value: raw !== '' && mask ? mask(raw) : raw, source });
  });
}
