import { Command } from 'commander';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { IMPORT_HEADER, importMemberFile } from '../../../service/member-import.js';
import { MEMBERSHIP_ALGORITHMS } from '../../../service/passwords.js';
import { action } from '../../action.js';
import type { CliContext } from '../../context.js';
import { CommandError } from '../../errors.js';
import { ExitCode } from '../../handle-error.js';
import { listenForInterrupt } from '../../interrupt.js';
import { json, jsonOption, required } from '../../options.js';
import { RowProgressDisplay } from '../../progress.js';
import { ImportReport } from './import-report.js';
import { RowReportFile } from './row-report-file.js';

/** The size of the file to import, for the check's percentage; it fails here when the path is not a file it can read. */
async function fileSize(path: string): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new CommandError(`${path} is not a file`);
    return stats.size;
  } finally {
    await handle.close();
  }
}

/** Opens the files before anything is imported; one it cannot open is the admin's to fix (exit 1), not a crash. */
async function openFiles(file: string, report: string | undefined): Promise<{ fileBytes: number; reportFile?: RowReportFile }> {
  try {
    const fileBytes = await fileSize(file);
    if (report === undefined) return { fileBytes };
    if (resolve(report) === resolve(file)) throw new CommandError('--report names the file being imported');
    return { fileBytes, reportFile: await RowReportFile.create(report) };
  } catch (error) {
    throw error instanceof CommandError ? error : new CommandError((error as Error).message);
  }
}

export function importCommand(ctx: CliContext): Command {
  const schema = z.object({
    file: required('FILE'),
    hashAlgorithm: z
      .string()
      .transform((name) => name.toUpperCase())
      .pipe(z.enum(MEMBERSHIP_ALGORITHMS, `--hash-algorithm must be one of ${MEMBERSHIP_ALGORITHMS.join(', ')}`))
      .optional(),
    report: z.string().min(1, '--report needs a file name').optional(),
    update: z.boolean().default(false),
    disableMissing: z.boolean().default(false),
    dryRun: z.boolean().default(false),
    json,
  });
  return new Command('import')
    .description(
      'import members from a CSV export of the old membership store, streamed, in batches of 1,000 rows a transaction; ' +
        'a row is imported whole or not at all, and running it again after an interruption imports only what is missing; ' +
        'with --update and --disable-missing, the export keeps the members in step',
    )
    .argument(
      '<file>',
      `CSV file whose header row is ${IMPORT_HEADER}, optionally with attribute columns (is_member, roles, attr:KEY, …)`,
    )
    .option(
      '--hash-algorithm <name>',
      `algorithm of hashed (format 1) passwords: ${MEMBERSHIP_ALGORITHMS.join(', ')} (default: by hash length, 20 bytes SHA1, 32 HMACSHA256)`,
    )
    .option('--report <file>', 'write every row\'s outcome to this CSV file (line,id,status,reason), with the ids as stored')
    .option('--update', "update stored members whose row differs, in the file's columns only (never the username or password)")
    .option(
      '--disable-missing',
      'after the whole file, disable the enabled members it does not list, as members disable does; not when a row was refused',
    )
    .option('--dry-run', 'write nothing: report what the import would add, update, disable, leave and refuse')
    .addOption(jsonOption())
    .action(
      action(async (file: unknown, options: object) => {
        const input = schema.parse({ ...options, file });
        const { fileBytes, reportFile } = await openFiles(input.file, input.report);
        const display = new RowProgressDisplay(ctx.io);
        // The first Ctrl-C stops the import once the batch in progress is written; a second one, at once.
        const interrupt = listenForInterrupt(() => display.note('Stopping once the rows read so far are written (Ctrl-C again stops at once)…'));
        const startedAt = performance.now();
        try {
          const summary = await ctx.withServices(async (s) => {
            const { update, disableMissing, dryRun } = input;
            const report = new ImportReport(ctx.io, input.json, display, { update, disableMissing, dryRun });
            const result = await importMemberFile(() => createReadStream(input.file, { highWaterMark: 256 * 1024 }), s.members, {
              hashAlgorithm: input.hashAlgorithm,
              update,
              disableMissing,
              dryRun,
              signal: interrupt.signal,
              onCheck: (progress) => display.checking(progress, fileBytes),
              onProgress: (progress) => display.advanced(progress),
              onRow: async (row) => {
                report.row(row);
                await reportFile?.row(row);
              },
              onDisabled: async (member) => {
                report.disabled(member);
                await reportFile?.disabled(member);
              },
            });
            await reportFile?.close();
            report.end(result, (performance.now() - startedAt) / 1000);
            return result;
          });
          if (summary.interrupted) return ExitCode.interrupted;
          return summary.refused > 0 ? ExitCode.failure : ExitCode.ok;
        } finally {
          interrupt.release();
          display.clear();
          await reportFile?.close().catch(() => {});
        }
      }),
    );
}
