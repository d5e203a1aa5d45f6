import { Command, Option } from 'commander';
import { closeSync, fchmodSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { schema } from '../../config/schema.js';
import { readWebConfig, WebConfigError, type WebConfigFormsSettings } from '../../service/forms-ticket/web-config.js';
import { action } from '../action.js';
import type { CliContext } from '../context.js';
import { CommandError } from '../errors.js';
import { ExitCode } from '../handle-error.js';
import { json, jsonOption, required } from '../options.js';
import { printDone, warn } from '../output.js';

/** A web.config is a few kilobytes; a file far larger is the wrong one (and /dev/zero would never end). */
const MAX_WEB_CONFIG_BYTES = 4 * 1024 * 1024;
const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);

/** The site's web.config as text: UTF-8 (a BOM is dropped by the reader), or UTF-16 when it starts with its BOM. */
function readSiteFile(path: string): string {
  try {
    const stats = statSync(path);
    if (!stats.isFile()) throw new CommandError(`${path} is not a file`);
    if (stats.size > MAX_WEB_CONFIG_BYTES) throw new CommandError(`${path} is larger than a web.config can be (${MAX_WEB_CONFIG_BYTES / 1024 / 1024} MiB)`);
    const bytes = readFileSync(path);
    return bytes.subarray(0, 2).equals(UTF16LE_BOM) ? bytes.subarray(2).toString('utf16le') : bytes.toString('utf8');
  } catch (error) {
    throw error instanceof CommandError ? error : new CommandError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** The settings the site's <machineKey> and <forms> give, in the order they are written; each checked as the service will read it. */
function settingsOf(site: WebConfigFormsSettings): Array<[string, string]> {
  const { machineKey, forms } = site;
  const settings: Array<[string, string]> = [
    ['MACHINE_KEY_VALIDATION_KEY', machineKey.validationKey],
    ['MACHINE_KEY_DECRYPTION_KEY', machineKey.decryptionKey],
    ['MACHINE_KEY_VALIDATION', machineKey.validation],
    ['MACHINE_KEY_DECRYPTION', machineKey.decryption],
    ['MACHINE_KEY_COMPATIBILITY', machineKey.compatibilityMode],
    ['FORMS_COOKIE_NAME', forms.name],
    ['FORMS_TIMEOUT', String(forms.timeoutMinutes)],
    ['FORMS_SLIDING', String(forms.slidingExpiration)],
    ...(forms.domain === undefined ? [] : [['COOKIE_DOMAIN', forms.domain] as [string, string]]),
  ];
  for (const [name, value] of settings) {
    const parsed = schema.shape[name as keyof typeof schema.shape].safeParse(value);
    // The keys were checked by the reader; a message here is about a name, a timeout or a domain, never a key.
    if (!parsed.success) throw new CommandError(`the site's ${name} cannot be used here: ${parsed.error.issues[0]?.message ?? 'not valid'}`);
  }
  return settings;
}

/** Writes the file readable by its owner only (mode 0600, also when --force replaces one), never over one unless asked. */
function writeEnvFile(path: string, text: string, force: boolean): void {
  let fd: number;
  try {
    fd = openSync(path, force ? 'w' : 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new CommandError(`${path} exists: give --force to replace it`);
    throw new CommandError(`cannot write ${path}: ${(error as Error).message}`);
  }
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * `config from-web-config FILE --out ENV_FILE`: the membership site's <machineKey> and <forms>, as the settings
 * that share its login cookie, written to an environment file. The keys go to the file only: the output names
 * the settings written, never a value.
 */
export function fromWebConfigCommand(ctx: CliContext): Command {
  const options = z.object({ file: required('FILE'), out: required('--out'), force: z.boolean().default(false), json });
  return new Command('from-web-config')
    .description("read the membership site's <machineKey> and <forms> from its web.config and write the settings that share its login cookie to an environment file (mode 0600); prints which settings, never a key")
    .argument('<file>', "the site's web.config")
    .addOption(new Option('--out <env-file>', 'the environment file to write (NAME=value lines)').makeOptionMandatory())
    .addOption(new Option('--force', 'replace the environment file when it exists'))
    .addOption(jsonOption())
    .action(
      action(async (file: unknown, given: object) => {
        const input = options.parse({ ...given, file });
        let site: WebConfigFormsSettings;
        try {
          site = readWebConfig(readSiteFile(input.file));
        } catch (error) {
          if (error instanceof WebConfigError) throw new CommandError(`${input.file}: ${error.message}`);
          throw error;
        }
        const settings = settingsOf(site);
        writeEnvFile(input.out, settings.map(([name, value]) => `${name}=${value}\n`).join(''), input.force);
        if (site.forms.domain === undefined) {
          warn(ctx.io, "the site's <forms> names no domain: its cookie is its host's own. Set COOKIE_DOMAIN to the domain the site and this service share, and the site's <forms domain> to the same");
        }
        const names = settings.map(([name]) => name);
        printDone(ctx.io, input.json, `Wrote ${names.length} settings to ${input.out}: ${names.join(', ')}.`, { file: input.out, settings: names });
        return ExitCode.ok;
      }),
    );
}
