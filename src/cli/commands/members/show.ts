import { Command } from 'commander';
import { z } from 'zod';
import { action } from '../../action.js';
import type { CliContext } from '../../context.js';
import { ExitCode } from '../../handle-error.js';
import { json, jsonOption, required } from '../../options.js';
import { printJson, printRecord } from '../../output.js';
import { recordArgument } from '../../record-argument.js';
import { memberFields, memberJson } from './member-fields.js';
import { MEMBER_ID } from './member-id.js';

export function showCommand(ctx: CliContext): Command {
  return recordArgument(ctx.io, new Command('show').description('show one member, and whether it has a second factor'), MEMBER_ID)
    .addOption(jsonOption())
    .action(
      action(async (id: unknown, options: object) => {
        const input = z.object({ id: required('ID'), json }).parse({ ...options, id });
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
