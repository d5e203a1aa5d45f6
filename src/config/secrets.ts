const HIDDEN = '(hidden)';

/** A database or SMTP URL without its password, in the user part or in the query (libpq reads both). */
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

/**
 * The settings that hold secrets, each with how it is shown wherever settings are listed (`config show`, the
 * settings log line). Naming a setting here is all it takes for it to be masked there, and for it to be
 * readable from the file that <NAME>_FILE names (setting-files.ts), as container platforms hand secrets over.
 */
export const SECRET_SETTINGS: Readonly<Record<string, (value: string) => string>> = {
  SECRET_KEY: () => HIDDEN,
  DATABASE_URL: maskedUrl,
  MACHINE_KEY_VALIDATION_KEY: () => HIDDEN,
  MACHINE_KEY_DECRYPTION_KEY: () => HIDDEN,
  SMTP_URL: maskedUrl,
};
