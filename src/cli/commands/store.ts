import { Command } from 'commander';
import { z } from 'zod';
import { backupStore, checkStore, configuredLocation, copyStore, LOCATION_HELP, parseLocation, StoreJobRefusal, type CheckReport, type StoreLocation } from '../../store/maintenance/index.js';
import { action } from '../action.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { listenForInterrupt } from '../interrupt.js';
import { json, jsonOption, required } from '../options.js';
import { printJson, printList, printRecord } from '../output.js';
import { count, RowProgressDisplay } from '../progress.js';

const KEY_REMINDER =
  'Keep the server key with it (the file SECRET_KEY_FILE names, or secret.key in DATA_DIR): without that key, the sealed secrets and signing keys in the store cannot be opened.';

/** The store the settings name (DATABASE_URL, or the SQLite file in DATA_DIR). */
function configured(ctx: CliContext): StoreLocation {
  const { dataDir, databaseUrl } = ctx.config();
  return configuredLocation(dataDir, databaseUrl);
}

function copy(ctx: CliContext): Command {
  const schema = z.object({ to: required('--to'), from: required('--from').optional(), withoutSessions: z.boolean().default(false), json });
  return new Command('copy')
    .description(
      'copy everything the store keeps into an empty database (migrated first), streamed in batches from one snapshot of the source while ' +
        'the service runs, then verify every table by its count and checksum; an interrupted copy run again starts over',
    )
    .requiredOption('--to <url>', `the empty target: ${LOCATION_HELP}`)
    .option('--from <url>', 'the source (default: the configured store, DATABASE_URL or DATA_DIR)')
    .option('--without-sessions', 'leave the member sessions out (and their OpenID and SAML links): members sign in again')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = schema.parse(options);
        const from = input.from === undefined ? configured(ctx) : parseLocation(input.from);
        const to = parseLocation(input.to);
        const display = new RowProgressDisplay(ctx.io, { verb: 'copied' });
        const interrupt = listenForInterrupt(() => display.note('Stopping after the batch in progress (Ctrl-C again stops at once)…'));
        try {
          const report = await copyStore({
            from,
            to,
            withoutSessions: input.withoutSessions,
            signal: interrupt.signal,
            onProgress: (progress) => display.advanced(progress),
            onNote: (message) => display.note(message),
          });
          display.clear();
          const rows = report.tables.reduce((sum, table) => sum + table.rows, 0);
          if (input.json) {
            printJson(ctx.io, { ...report, withoutSessions: input.withoutSessions, rows, verified: true });
          } else {
            ctx.io.out(`Copied ${count(rows)} rows of ${report.tables.length} tables from ${report.source} to ${report.target}.\n`);
            printList(ctx.io, false, report.tables.map((table) => ({ table: table.name, rows: table.skipped ? 'left out' : count(table.rows), checksum: table.checksum })), '');
            ctx.io.out(`Verified: every table's count and checksum match the source's.\n${KEY_REMINDER}\n`);
          }
          return ExitCode.ok;
        } catch (error) {
          if (!interrupt.signal.aborted || !(error instanceof StoreJobRefusal)) throw error;
          display.note(`error: ${error.message}`);
          return ExitCode.interrupted;
        } finally {
          interrupt.release();
          display.clear();
        }
      }),
    );
}

function backup(ctx: CliContext): Command {
  const schema = z.object({ file: required('FILE'), json });
  return new Command('backup')
    .description("take a consistent copy of the live SQLite store into FILE (SQLite's online backup) while the service runs, then check it; PostgreSQL: use pg_dump")
    .argument('<file>', 'the backup file to write; it must not exist')
    .addOption(jsonOption())
    .action(
      action(async (file: unknown, options: object) => {
        const input = schema.parse({ file, ...options });
        const report = await backupStore(configured(ctx), input.file);
        if (input.json) {
          printJson(ctx.io, { file: report.file, pages: report.pages, bytes: report.bytes, ok: report.check.ok, checks: report.check.checks });
        } else {
          ctx.io.out(`Backed up the store to ${report.file} (${count(report.bytes)} bytes).\n`);
          printChecks(ctx, report.check);
          ctx.io.out(`${KEY_REMINDER}\n`);
        }
        return report.check.ok ? ExitCode.ok : ExitCode.failure;
      }),
    );
}

function printChecks(ctx: CliContext, report: CheckReport): void {
  printList(ctx.io, false, report.checks.map((check) => ({ check: check.name, result: check.ok ? 'ok' : 'FAILED', detail: check.detail })), '');
}

function check(ctx: CliContext): Command {
  const schema = z.object({ store: required('STORE').optional(), json });
  return new Command('check')
    .description("check a store, read-only: its migrations are this version's, no copy into it was left unfinished, and its database finds nothing wrong in its integrity checks")
    .argument('[store]', `the store to check: ${LOCATION_HELP} (default: the configured store)`)
    .addOption(jsonOption())
    .action(
      action(async (store: unknown, options: object) => {
        const input = schema.parse({ store, ...options });
        const report = await checkStore(input.store === undefined ? configured(ctx) : parseLocation(input.store));
        if (input.json) {
          printJson(ctx.io, report);
        } else {
          printRecord(ctx.io, false, { store: report.store, dialect: report.dialect, result: report.ok ? 'ok' : 'FAILED' });
          printChecks(ctx, report);
          printList(ctx.io, false, report.tables.map((table) => ({ table: table.name, rows: count(table.rows) })), '');
        }
        return report.ok ? ExitCode.ok : ExitCode.failure;
      }),
    );
}

export function storeCommand(ctx: CliContext): Command {
  return new Command('store')
    .description('copy the store to another database (SQLite and PostgreSQL, either way), back up the SQLite store, check a store')
    .addCommand(copy(ctx))
    .addCommand(backup(ctx))
    .addCommand(check(ctx));
}
