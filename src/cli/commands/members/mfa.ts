import { Command } from 'commander';
import { z } from 'zod';
import { action } from '../../action.js';
import type { CliContext } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { ExitCode } from '../../handle-error.js';
import { json, jsonOption, required } from '../../options.js';
import { printDone, printRecord } from '../../output.js';
import { recordArgument } from '../../record-argument.js';
import { MEMBER_ID_FORMERLY_OPTION } from './member-id.js';

const schema = z.object({ id: required('ID'), json });

/** `members mfa status`: whether the member has a confirmed factor, one being set up, and its recovery codes left. */
function status(ctx: CliContext): Command {
  const command = new Command('status').description(
    "show a member's second factor: enabled, being set up, and how many recovery codes are left",
  );
  return recordArgument(ctx.io, command, MEMBER_ID_FORMERLY_OPTION)
    .addOption(jsonOption())
    .action(
      action(async (id: unknown, options: object) => {
        const input = schema.parse({ ...options, id });
        const { member, factor } = await ctx.withServices(async (s) => {
          const row = await s.members.get(input.id);
          return { member: row, factor: await s.secondFactor.status(row.id) };
        });
        printRecord(ctx.io, input.json, { member: member.id, ...factor });
        return ExitCode.ok;
      }),
    );
}

/**
 * `members mfa reset`: removes the member's factor (confirmed or being set up) and its recovery codes, for a
 * member who lost the device; the next sign-in needs the password alone, or a new set-up under MFA=required.
 * A member without one is a "not found", as a session already revoked is for `sessions revoke`.
 */
function reset(ctx: CliContext): Command {
  const command = new Command('reset').description("remove a member's second factor and its recovery codes (for support: a lost device)");
  return recordArgument(ctx.io, command, MEMBER_ID_FORMERLY_OPTION)
    .addOption(jsonOption())
    .action(
      action(async (id: unknown, options: object) => {
        const input = schema.parse({ ...options, id });
        const { member, before } = await ctx.withServices(async (s) => {
          const row = await s.members.get(input.id);
          const factor = await s.secondFactor.status(row.id);
          if (!(await s.secondFactor.remove(row.id, { by: 'admin' }))) throw new NotFoundError(`Member ${row.id} has no second factor: nothing to remove`);
          return { member: row.id, before: factor };
        });
        const codes = before.enabled ? before.recoveryCodesLeft : 0;
        const message = before.enabled
          ? `Second factor of member ${member} removed, with its ${codes} unused recovery code${codes === 1 ? '' : 's'}.`
          : `Second factor of member ${member} removed: it was being set up, not yet confirmed.`;
        printDone(ctx.io, input.json, message, { member, removed: before.enabled ? 'confirmed' : 'pending', recoveryCodesRemoved: codes });
        return ExitCode.ok;
      }),
    );
}

export function mfaCommand(ctx: CliContext): Command {
  return new Command('mfa').description("see or reset a member's second factor (TOTP)").addCommand(status(ctx)).addCommand(reset(ctx));
}
