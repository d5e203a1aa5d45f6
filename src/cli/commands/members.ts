import { Command, Option } from 'commander';
import { once } from 'node:events';
import { createReadStream, type WriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { z } from 'zod';
import { IMPORT_HEADER, importMemberFile, type ImportReportRow, type ImportSummary } from '../../service/member-import.js';
import { EXTRA_KEY } from '../../config/result-fields.js';
import { definedOnly, parseRole, TEXT_ATTRIBUTES } from '../../service/member-attributes.js';
import { MEMBERSHIP_ALGORITHMS } from '../../service/passwords.js';
import type { MemberAttributes, MemberRow } from '../../service/index.js';
import { action } from '../action.js';
import type { CliContext, CliIo } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { emailOption, json, jsonOption, optionalText, repeatable, required } from '../options.js';
import { isoTime, printDone, printJson, printList, printRecord, type Fields } from '../output.js';
import { count, ImportProgressDisplay } from '../progress.js';
import { simpleCommand } from '../simple-command.js';

/** contactNumber → "contact-number": the option's name, which the text output uses too. */
function optionName(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The attributes on one line, in the options' words: `member=yes contact-number=… roles=r1:Editor|r2:Reader
 * attr:tier=gold` (extras as the import's attr: columns); null when there are none. --json has them exactly.
 */
function attributesText(attributes: MemberAttributes): string | null {
  const { isMember, roles, extra } = attributes;
  const parts = [
    ...(isMember === undefined ? [] : [`member=${isMember ? 'yes' : 'no'}`]),
    ...TEXT_ATTRIBUTES.flatMap((key) => (attributes[key] === undefined ? [] : [`${optionName(key)}=${attributes[key]}`])),
    ...(roles === undefined ? [] : [`roles=${roles.map((role) => `${role.id}:${role.name}`).join('|')}`]),
    ...Object.entries(extra ?? {}).map(([key, value]) => `attr:${key}=${value}`),
  ];
  return parts.length === 0 ? null : parts.join(' ');
}

function memberFields(m: MemberRow): Fields {
  return {
    id: m.id,
    username: m.username,
    email: m.email,
    firstName: m.firstName,
    lastName: m.lastName,
    enabled: m.enabled,
    created: isoTime(m.createdAt),
    attributes: attributesText(m.attributes),
  };
}

/** The table's fields, with the attributes as the object they are. */
function memberJson(m: MemberRow): object {
  return { ...memberFields(m), attributes: m.attributes };
}

function printMember(io: CliIo, asJson: boolean, m: MemberRow): void {
  if (asJson) printJson(io, memberJson(m));
  else printRecord(io, false, memberFields(m));
}

const roleOption = z.string().transform((pair, ctx) => {
  const role = parseRole(pair);
  if (!role) ctx.addIssue({ code: 'custom', message: `--role must be id:name, not "${pair}"` });
  return role ?? z.NEVER;
});

const extraOption = z.string().transform((pair, ctx) => {
  const equals = pair.indexOf('=');
  const key = pair.slice(0, Math.max(equals, 0));
  if (!EXTRA_KEY.test(key)) {
    const message = `--attribute must be key=value, the key letters, digits, _, . and - (64 at most) starting with a letter or _, not "${pair}"`;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  }
  return [key, pair.slice(equals + 1)] as const;
});

/** The attribute options of add and update, named as commander names them (`--contact-number` → contactNumber). */
const attributeOptions = {
  member: z.boolean().optional(),
  contactNumber: optionalText,
  labelName: optionalText,
  organisationId: optionalText,
  organisationName: optionalText,
  priceLevelId: optionalText,
  priceLevelName: optionalText,
  role: z.array(roleOption).optional(),
  attribute: z.array(extraOption).optional(),
};

type AttributeOptions = z.infer<z.ZodObject<typeof attributeOptions>>;

function withAttributeOptions(command: Command): Command {
  return command
    .option('--member', 'mark as a member (pa_member)')
    .option('--no-member', 'mark as not a member')
    .option('--contact-number <number>', 'contact number (pa_contactnumber)')
    .option('--label-name <name>', 'label name (pa_labelname)')
    .option('--organisation-id <id>', "the member's organisation's id (parentcustomerid_id)")
    .option('--organisation-name <name>', "the member's organisation's name (parentcustomerid)")
    .option('--price-level-id <id>', 'price level id (defaultpricelevelid_id)')
    .option('--price-level-name <name>', 'price level name (defaultpricelevelid)')
    .option('--role <id:name>', 'a web role (pa_webroles); repeat for each', repeatable)
    .option('--attribute <key=value>', 'a tenant-specific attribute; repeat for each', repeatable);
}

/** The attributes the options give; the ones not given are left out. */
function givenAttributes(options: AttributeOptions): MemberAttributes {
  const { member, role, attribute, ...texts } = options;
  return definedOnly({ isMember: member, ...texts, roles: role, extra: attribute && Object.fromEntries(attribute) });
}

function add(ctx: CliContext): Command {
  const schema = z.object({
    id: required('--id').optional(),
    username: required('--username'),
    email: emailOption('--email'),
    firstName: optionalText,
    lastName: optionalText,
    ...attributeOptions,
    json,
  });
  const command = new Command('add')
    .description('add a member that sessions can sign in')
    .option('--id <id>', 'member id, as the membership system knows it (issued when left out and member ids are GUIDs)')
    .requiredOption('--username <username>', 'user name')
    .option('--email <email>', 'email address')
    .option('--first-name <name>', 'first name')
    .option('--last-name <name>', 'last name');
  return withAttributeOptions(command)
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const { json: asJson, id, username, email, firstName, lastName, ...attributes } = schema.parse(options);
        const member = { id, username, email, firstName, lastName, attributes: givenAttributes(attributes) };
        printMember(ctx.io, asJson, await ctx.withServices((s) => s.members.add(member)));
        return ExitCode.ok;
      }),
    );
}

/**
 * The member's attributes with the options' changes: each attribute given replaces its value (the roles given
 * replace the list; an empty text removes the attribute), the extras given are set, the removed ones removed.
 */
function mergedAttributes(current: MemberAttributes, given: MemberAttributes, clearRoles: boolean, removed: string[]): MemberAttributes {
  const merged = { ...current, ...given, extra: { ...current.extra, ...given.extra } };
  for (const key of removed) delete merged.extra[key];
  if (clearRoles) delete merged.roles;
  return merged;
}

function update(ctx: CliContext): Command {
  const schema = z
    .object({
      id: required('ID'),
      email: emailOption('--email'),
      firstName: optionalText,
      lastName: optionalText,
      ...attributeOptions,
      clearRoles: z.boolean().default(false),
      removeAttribute: z.array(z.string()).default([]),
      json,
    })
    .refine(
      (input) => !input.attribute?.some(([key]) => input.removeAttribute.includes(key)),
      '--attribute and --remove-attribute name the same key',
    );
  const command = new Command('update')
    .description("change a member's email, names or attributes; what is not given stays as it is")
    .argument('<id>', 'member id')
    .option('--email <email>', 'email address')
    .option('--first-name <name>', 'first name')
    .option('--last-name <name>', 'last name');
  return withAttributeOptions(command)
    .addOption(new Option('--clear-roles', 'remove every role').conflicts('role'))
    .option('--remove-attribute <key>', 'remove a tenant-specific attribute; repeat for each', repeatable)
    .addOption(jsonOption())
    .action(
      action(async (id: unknown, options: object) => {
        const input = schema.parse({ id, ...options });
        const { json: asJson, email, firstName, lastName, clearRoles, removeAttribute, ...attributeInput } = input;
        const given = givenAttributes(attributeInput);
        const changesAttributes = Object.keys(given).length > 0 || clearRoles || removeAttribute.length > 0;
        const row = await ctx.withServices(async (s) => {
          const current = await s.members.get(input.id);
          const attributes = changesAttributes ? mergedAttributes(current.attributes, given, clearRoles, removeAttribute) : undefined;
          return s.members.update(input.id, { email, firstName, lastName, attributes });
        });
        printMember(ctx.io, asJson, row);
        return ExitCode.ok;
      }),
    );
}

function list(ctx: CliContext): Command {
  return new Command('list')
    .description('list members')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = z.object({ json }).parse(options);
        const members = await ctx.withServices((s) => s.members.list());
        if (input.json) printJson(ctx.io, members.map(memberJson));
        else printList(ctx.io, false, members.map(memberFields), 'No members.');
        return ExitCode.ok;
      }),
    );
}

function show(ctx: CliContext): Command {
  return new Command('show')
    .description('show one member, and whether it has a second factor')
    .argument('<id>', 'member id')
    .addOption(jsonOption())
    .action(
      action(async (id: unknown, options: object) => {
        const input = z.object({ id: required('ID'), json }).parse({ id, ...options });
        const { member, secondFactor } = await ctx.withServices(async (s) => {
          const row = await s.members.get(input.id);
          return { member: row, secondFactor: await s.secondFactor.isEnabled(row.id) };
        });
        if (input.json) printJson(ctx.io, { ...memberJson(member), secondFactor });
        else printRecord(ctx.io, false, { ...memberFields(member), secondFactor });
        return ExitCode.ok;
      }),
    );
}

/** `members mfa status`: whether the member has a confirmed factor, one being set up, and its recovery codes left. */
function mfaStatus(ctx: CliContext): Command {
  const schema = z.object({ id: required('--id'), json });
  return new Command('status')
    .description("show a member's second factor: enabled, being set up, and how many recovery codes are left")
    .requiredOption('--id <id>', 'member id')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = schema.parse(options);
        const { member, status } = await ctx.withServices(async (s) => {
          const row = await s.members.get(input.id);
          return { member: row, status: await s.secondFactor.status(row.id) };
        });
        printRecord(ctx.io, input.json, { member: member.id, ...status });
        return ExitCode.ok;
      }),
    );
}

/**
 * `members mfa reset`: removes the member's factor (confirmed or being set up) and its recovery codes, for a
 * member who lost the device; the next sign-in needs the password alone, or a new set-up under MFA=required.
 */
function mfaReset(ctx: CliContext): Command {
  const schema = z.object({ id: required('--id') });
  return new Command('reset')
    .description("remove a member's second factor and its recovery codes (for support: a lost device)")
    .requiredOption('--id <id>', 'member id')
    .action(
      action(async (options: object) => {
        const input = schema.parse(options);
        const message = await ctx.withServices(async (s) => {
          const { id } = await s.members.get(input.id);
          const before = await s.secondFactor.status(id);
          if (!(await s.secondFactor.remove(id))) return `Member ${id} has no second factor: nothing to remove.`;
          if (!before.enabled) return `Second factor of member ${id} removed: it was being set up, not yet confirmed.`;
          const codes = `${before.recoveryCodesLeft} unused recovery code${before.recoveryCodesLeft === 1 ? '' : 's'}`;
          return `Second factor of member ${id} removed, with its ${codes}.`;
        });
        printDone(ctx.io, message);
        return ExitCode.ok;
      }),
    );
}

function mfa(ctx: CliContext): Command {
  return new Command('mfa').description("see or reset a member's second factor (TOTP)").addCommand(mfaStatus(ctx)).addCommand(mfaReset(ctx));
}

/**
 * The new password from the terminal, asked twice and never echoed, or the first line of a pipe. Null, with
 * the reason printed, when there is none or the two entries differ.
 */
async function readNewPassword(io: CliIo): Promise<string | null> {
  const terminal = process.stdin.isTTY === true;
  // In terminal mode readline switches the terminal's echo off and echoes itself, into this sink.
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const reader = createInterface({ input: process.stdin, output: silent, terminal });
  reader.on('SIGINT', () => reader.close());
  const lines = reader[Symbol.asyncIterator]();
  const ask = async (prompt: string): Promise<string | undefined> => {
    if (terminal) io.err(prompt);
    const line = await lines.next();
    if (terminal) io.err('\n');
    return line.done ? undefined : line.value;
  };
  try {
    const password = await ask('New password: ');
    if (password === undefined) {
      io.err('error: no password was entered\n');
      return null;
    }
    if (terminal && (await ask('Repeat the new password: ')) !== password) {
      io.err('error: the two passwords differ\n');
      return null;
    }
    return password;
  } finally {
    reader.close();
  }
}

function setPassword(ctx: CliContext): Command {
  const schema = z.object({ id: required('--id'), password: z.string().optional() });
  return new Command('set-password')
    .description("set a member's password (stored as an argon2id hash); prompts for it unless --password is given")
    .requiredOption('--id <id>', 'member id')
    .option('--password <password>', 'the new password; it stays in your shell history, so prefer the prompt')
    .action(
      action(async (options: object) => {
        const input = schema.parse(options);
        return ctx.withServices(async (s) => {
          await s.members.get(input.id); // an unknown member fails before the prompt
          const password = input.password ?? (await readNewPassword(ctx.io));
          if (password === null) return ExitCode.failure;
          await s.members.setPassword(input.id, password);
          printDone(ctx.io, `Password of member ${input.id} set.`);
          return ExitCode.ok;
        });
      }),
    );
}

/** The summary line: `N imported, K already there, J refused, in S s.` */
function importSummaryText(summary: ImportSummary, seconds: number): string {
  const counts = `${count(summary.imported)} imported, ${count(summary.existing)} already there, ${count(summary.refused)} refused`;
  if (!summary.interrupted) return `${counts}, in ${seconds.toFixed(1)} s.`;
  const left = summary.rowsTotal - summary.rowsDone;
  return (
    `Interrupted after ${count(summary.rowsDone)} of ${count(summary.rowsTotal)} rows: ${counts}, in ${seconds.toFixed(1)} s. ` +
    `Run the same command again to import the other ${count(left)}: the rows imported will be reported as already there.`
  );
}

/**
 * The report of `members import`, written as the rows are settled, never held whole: the refused rows (line,
 * id, reason) and the summary. With --json, one JSON document on stdout, { "refused": [...], "summary": {...} },
 * its rows written as they come.
 */
class ImportReport {
  #refusedRows = 0;

  constructor(
    private readonly io: CliIo,
    private readonly asJson: boolean,
    private readonly display: ImportProgressDisplay,
  ) {}

  row(row: ImportReportRow): void {
    if (row.status !== 'refused') return;
    const first = this.#refusedRows++ === 0;
    this.display.clear();
    if (this.asJson) {
      // The document begins with its first row, so that a file refused as a whole prints nothing on stdout.
      const json = JSON.stringify({ line: row.line, id: row.id, reason: row.reason ?? null });
      this.io.out(`${first ? '{\n  "refused": [' : ','}\n    ${json}`);
      return;
    }
    this.io.out(`refused line ${row.line} (${row.id === null ? 'no id' : `id ${row.id}`}): ${row.reason ?? ''}\n`);
  }

  end(summary: ImportSummary, seconds: number): void {
    this.display.clear();
    const text = importSummaryText(summary, seconds);
    if (!this.asJson) return printDone(this.io, text);
    const { rowsTotal, rowsDone, imported, existing, refused, interrupted } = summary;
    const json = JSON.stringify({ rowsTotal, rowsDone, imported, existing, refused, interrupted, seconds: Number(seconds.toFixed(1)) });
    this.io.out(`${this.#refusedRows > 0 ? '\n  ]' : '{\n  "refused": []'},\n  "summary": ${json}\n}\n`);
    // With --json, stdout carries the one JSON document only.
    this.io.err(`${text}\n`);
  }
}

/** A CSV field, quoted when it has a quote, a comma or a line end. */
function csvField(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * `--report FILE`: every row's outcome as CSV (line,id,status,reason), written as the rows are settled, the
 * import waiting whenever the file falls behind. It gives the ids as stored, which the terminal report does
 * not: GUIDs lower-cased, or the one issued for an empty cell.
 */
class RowReportFile {
  readonly #out: WriteStream;
  #failed: Error | undefined;

  private constructor(out: WriteStream) {
    this.#out = out;
    this.#out.on('error', (error) => (this.#failed = error));
    this.#out.write('line,id,status,reason\n');
  }

  /** Opened before the import starts, so that a path it cannot write fails before anything is imported. */
  static async create(path: string): Promise<RowReportFile> {
    const handle = await open(path, 'w', 0o600);
    return new RowReportFile(handle.createWriteStream());
  }

  async row(row: ImportReportRow): Promise<void> {
    if (this.#failed) throw this.#failed;
    const line = [row.line, row.id, row.status === 'existing' ? 'already there' : row.status, row.reason ?? null].map(csvField).join(',');
    if (!this.#out.write(`${line}\n`)) await once(this.#out, 'drain');
  }

  /** Harmless to call again. */
  async close(): Promise<void> {
    if (!this.#out.writableEnded) this.#out.end();
    await finished(this.#out);
    if (this.#failed) throw this.#failed;
  }
}

/** 128 + SIGINT, as a shell reports a command stopped by Ctrl-C. */
const EXIT_INTERRUPTED = 130;

function importCommand(ctx: CliContext): Command {
  const schema = z.object({
    file: required('FILE'),
    hashAlgorithm: z
      .string()
      .transform((name) => name.toUpperCase())
      .pipe(z.enum(MEMBERSHIP_ALGORITHMS, `--hash-algorithm must be one of ${MEMBERSHIP_ALGORITHMS.join(', ')}`))
      .optional(),
    report: z.string().min(1, '--report needs a file name').optional(),
    json,
  });
  return new Command('import')
    .description(
      'import members from a CSV export of the old membership store, streamed, in batches of 1,000 rows a transaction; ' +
        'a row is imported whole or not at all, and running it again after an interruption imports only what is missing',
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
    .addOption(jsonOption())
    .action(
      action(async (file: unknown, options: object) => {
        const input = schema.parse({ file, ...options });
        let fileBytes: number;
        let reportFile: RowReportFile | undefined;
        try {
          const handle = await open(input.file, 'r');
          try {
            const stats = await handle.stat();
            if (!stats.isFile()) throw new Error(`${input.file} is not a file`);
            fileBytes = stats.size;
          } finally {
            await handle.close();
          }
          if (input.report !== undefined) {
            if (resolve(input.report) === resolve(input.file)) throw new Error('--report names the file being imported');
            reportFile = await RowReportFile.create(input.report);
          }
        } catch (error) {
          ctx.io.err(`error: ${(error as Error).message}\n`);
          return ExitCode.failure;
        }
        const display = new ImportProgressDisplay(ctx.io);
        // The first Ctrl-C stops the import once the batch in progress is written; a second one, at once.
        const stop = new AbortController();
        const interrupt = () => {
          stop.abort();
          display.note('Stopping once the rows read so far are written (Ctrl-C again stops at once)…');
        };
        process.once('SIGINT', interrupt);
        const startedAt = performance.now();
        try {
          const summary = await ctx.withServices(async (s) => {
            const report = new ImportReport(ctx.io, input.json, display);
            const result = await importMemberFile(() => createReadStream(input.file, { highWaterMark: 256 * 1024 }), s.members, {
              hashAlgorithm: input.hashAlgorithm,
              signal: stop.signal,
              onCheck: (progress) => display.checking(progress, fileBytes),
              onProgress: (progress) => display.importing(progress),
              onRow: async (row) => {
                report.row(row);
                await reportFile?.row(row);
              },
            });
            await reportFile?.close();
            report.end(result, (performance.now() - startedAt) / 1000);
            return result;
          });
          if (summary.interrupted) return EXIT_INTERRUPTED;
          return summary.refused > 0 ? ExitCode.failure : ExitCode.ok;
        } finally {
          process.off('SIGINT', interrupt);
          display.clear();
          await reportFile?.close().catch(() => {});
        }
      }),
    );
}

export function membersCommand(ctx: CliContext): Command {
  const byId = { argument: 'id', argumentDescription: 'member id' };
  return new Command('members')
    .description('manage the members that sessions sign in')
    .addCommand(add(ctx))
    .addCommand(update(ctx))
    .addCommand(list(ctx))
    .addCommand(show(ctx))
    .addCommand(setPassword(ctx))
    .addCommand(mfa(ctx))
    .addCommand(importCommand(ctx))
    .addCommand(
      simpleCommand(ctx, {
        ...byId,
        verb: 'disable',
        description: "stop the member's sessions from verifying until enabled again",
        run: async (s, id) => {
          await s.members.setEnabled(id, false);
          return `Member ${id} disabled.`;
        },
      }),
    )
    .addCommand(
      simpleCommand(ctx, {
        ...byId,
        verb: 'enable',
        description: "let the member's sessions verify again",
        run: async (s, id) => {
          await s.members.setEnabled(id, true);
          return `Member ${id} enabled.`;
        },
      }),
    )
    .addCommand(
      simpleCommand(ctx, {
        ...byId,
        verb: 'remove',
        description: 'delete the member and all of its sessions',
        run: async (s, id) => {
          await s.members.remove(id);
          return `Member ${id} and its sessions removed.`;
        },
      }),
    );
}
