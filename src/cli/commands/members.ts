import { Command } from 'commander';
import { z } from 'zod';
import type { MemberRow } from '../../store/store.js';
import { action } from '../action.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { emailOption, json, jsonOption, optionalText, required } from '../options.js';
import { isoTime, printList, printRecord, type Fields } from '../output.js';
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

export function membersCommand(ctx: CliContext): Command {
  const byId = { argument: 'id', argumentDescription: 'member id' };
  return new Command('members')
    .description('manage the members that sessions sign in')
    .addCommand(add(ctx))
    .addCommand(list(ctx))
    .addCommand(show(ctx))
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
