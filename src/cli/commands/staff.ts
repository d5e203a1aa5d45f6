import { Command, Option } from 'commander';
import { z } from 'zod';
import { STAFF_ROLES } from '../../service/staff.js';
import { action } from '../action.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { json, jsonOption, required } from '../options.js';
import { isoTime, printDone, printList } from '../output.js';
import { recordArgument, type RecordArgument } from '../record-argument.js';
import { simpleCommand } from '../simple-command.js';
import { MEMBER_ID } from './members/member-id.js';

/** The member a command acts on, by id: `staff grant 10042 --role support`. */
const MEMBER: RecordArgument = { ...MEMBER_ID, name: 'member' };

function grant(ctx: CliContext): Command {
  const schema = z.object({ member: required('MEMBER'), role: z.enum(STAFF_ROLES), json });
  const command = new Command('grant').description('let the member use the staff console (/Admin) with this role, in place of any other');
  return recordArgument(ctx.io, command, MEMBER)
    .addOption(new Option('--role <role>', 'support: find members and help them; admin: also manage partners and staff').choices(STAFF_ROLES).makeOptionMandatory())
    .addOption(jsonOption())
    .action(
      action(async (member: unknown, options: object) => {
        const input = schema.parse({ member, ...options });
        const row = await ctx.withServices((s) => s.staff.grant(input.member, input.role));
        const message = `Member ${row.memberId} is now ${row.role} staff; the console asks for a second factor.`;
        printDone(ctx.io, input.json, message, { member: row.memberId, role: row.role, granted: isoTime(row.grantedAt) });
        return ExitCode.ok;
      }),
    );
}

function list(ctx: CliContext): Command {
  return new Command('list')
    .description('list the staff: each member with a role, by member id')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = z.object({ json }).parse(options);
        const staff = await ctx.withServices((s) => s.staff.list());
        const rows = staff.map((row) => ({ member: row.memberId, username: row.username, role: row.role, granted: isoTime(row.grantedAt) }));
        printList(ctx.io, input.json, rows, 'No staff.');
        return ExitCode.ok;
      }),
    );
}

export function staffCommand(ctx: CliContext): Command {
  return new Command('staff')
    .description('manage who may use the staff console (/Admin), as support or admin (docs/staff.md)')
    .addCommand(grant(ctx))
    .addCommand(list(ctx))
    .addCommand(
      simpleCommand(ctx, {
        record: MEMBER,
        verb: 'revoke',
        description: "take the member's staff role away: the console refuses the member from the next request",
        run: async (s, member) => {
          await s.staff.revoke(member);
          return { message: `Member ${member} is no longer staff.`, record: { member, revoked: true } };
        },
      }),
    );
}
