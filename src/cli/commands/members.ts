import { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { z } from 'zod';
import { IMPORT_HEADER, importMembers } from '../../service/member-import.js';
import { MEMBERSHIP_ALGORITHMS } from '../../service/passwords.js';
import type { MemberRow } from '../../service/index.js';
import { action } from '../action.js';
import type { CliContext, CliIo } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { emailOption, json, jsonOption, optionalText, required } from '../options.js';
import { isoTime, printDone, printList, printRecord, type Fields } from '../output.js';
import { simpleCommand } from '../simple-command.js';

function memberFields(m: MemberRow): Fields {
  return {
    id: m.id,
    username: m.username,
    email: m.email,
    firstName: m.firstName,
    lastName: m.lastName,
    enabled: m.enabled,
    created: isoTime(m.createdAt),
  };
}

function add(ctx: CliContext): Command {
  const schema = z.object({
    id: required('--id'),
    username: required('--username'),
    email: emailOption('--email'),
    firstName: optionalText,
    lastName: optionalText,
    json,
  });
  return new Command('add')
    .description('add a member that sessions can sign in')
    .requiredOption('--id <id>', 'member id, as the membership system knows it')
    .requiredOption('--username <username>', 'user name')
    .option('--email <email>', 'email address')
    .option('--first-name <name>', 'first name')
    .option('--last-name <name>', 'last name')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const { json: asJson, ...member } = schema.parse(options);
        const row = await ctx.withServices((s) => s.members.add(member));
        printRecord(ctx.io, asJson, memberFields(row));
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
        printList(ctx.io, input.json, members.map(memberFields), 'No members.');
        return ExitCode.ok;
      }),
    );
}

function show(ctx: CliContext): Command {
  return new Command('show')
    .description('show one member')
    .argument('<id>', 'member id')
    .addOption(jsonOption())
    .action(
      action(async (id: unknown, options: object) => {
        const input = z.object({ id: required('ID'), json }).parse({ id, ...options });
        const member = await ctx.withServices((s) => s.members.get(input.id));
        printRecord(ctx.io, input.json, memberFields(member));
        return ExitCode.ok;
      }),
    );
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

/** UTF-16 with a byte order mark, as SQL Server and Windows PowerShell tools write it, or else UTF-8. */
function decodeText(bytes: Buffer): string {
  return bytes[0] === 0xff && bytes[1] === 0xfe ? bytes.toString('utf16le') : bytes.toString('utf8');
}

function importCommand(ctx: CliContext): Command {
  const schema = z.object({
    file: required('FILE'),
    hashAlgorithm: z
      .string()
      .transform((name) => name.toUpperCase())
      .pipe(z.enum(MEMBERSHIP_ALGORITHMS, `--hash-algorithm must be one of ${MEMBERSHIP_ALGORITHMS.join(', ')}`))
      .optional(),
    json,
  });
  return new Command('import')
    .description('import members from a CSV export of the old membership store; a row is imported whole or not at all')
    .argument('<file>', `CSV file whose header row is ${IMPORT_HEADER}`)
    .option(
      '--hash-algorithm <name>',
      `algorithm of hashed (format 1) passwords: ${MEMBERSHIP_ALGORITHMS.join(', ')} (default: by hash length, 20 bytes SHA1, 32 HMACSHA256)`,
    )
    .addOption(jsonOption())
    .action(
      action(async (file: unknown, options: object) => {
        const input = schema.parse({ file, ...options });
        let text: string;
        try {
          text = decodeText(await readFile(input.file));
        } catch (error) {
          ctx.io.err(`error: ${(error as Error).message}\n`);
          return ExitCode.failure;
        }
        const report = await ctx.withServices((s) => importMembers(text, s.members, { hashAlgorithm: input.hashAlgorithm }));
        const rows = report.map((r) => ({ line: r.line, id: r.id, status: r.status, reason: r.reason ?? null }));
        printList(ctx.io, input.json, rows, 'No rows to import.');
        const refused = report.filter((r) => r.status === 'refused').length;
        const summary = `${report.length - refused} imported, ${refused} refused.`;
        // With --json, stdout carries the one JSON document only.
        if (input.json) ctx.io.err(`${summary}\n`);
        else printDone(ctx.io, summary);
        return refused > 0 ? ExitCode.failure : ExitCode.ok;
      }),
    );
}

export function membersCommand(ctx: CliContext): Command {
  const byId = { argument: 'id', argumentDescription: 'member id' };
  return new Command('members')
    .description('manage the members that sessions sign in')
    .addCommand(add(ctx))
    .addCommand(list(ctx))
    .addCommand(show(ctx))
    .addCommand(setPassword(ctx))
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
