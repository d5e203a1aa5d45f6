import { Command } from 'commander';
import { z } from 'zod';
import { action } from '../../action.js';
import type { CliContext } from '../../context.js';
import { ExitCode } from '../../handle-error.js';
import { json, jsonOption } from '../../options.js';
import { printJson, printList } from '../../output.js';
import { memberFields, memberJson } from './member-fields.js';

export function listCommand(ctx: CliContext): Command {
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
