import { Command } from 'commander';
import { z } from 'zod';
import { action } from '../../action.js';
import type { CliContext } from '../../context.js';
import { ExitCode } from '../../handle-error.js';
import { json, jsonOption, required } from '../../options.js';
import { printDone } from '../../output.js';
import { recordArgument } from '../../record-argument.js';
import { MEMBER_ID_FORMERLY_OPTION } from './member-id.js';
import { readNewPassword } from './password-prompt.js';

export function setPasswordCommand(ctx: CliContext): Command {
  const schema = z.object({ id: required('ID'), password: z.string().optional(), json });
  const command = new Command('set-password').description(
    "set a member's password (stored as an argon2id hash); prompts for it unless --password is given",
  );
  return recordArgument(ctx.io, command, MEMBER_ID_FORMERLY_OPTION)
    .option('--password <password>', 'the new password; it stays in your shell history, so prefer the prompt')
    .addOption(jsonOption())
    .action(
      action(async (id: unknown, options: object) => {
        const input = schema.parse({ ...options, id });
        await ctx.withServices(async (s) => {
          await s.members.get(input.id); // an unknown member fails before the prompt
          await s.members.setPassword(input.id, input.password ?? (await readNewPassword(ctx.io)), { by: 'admin' });
        });
        printDone(ctx.io, input.json, `Password of member ${input.id} set.`, { id: input.id, passwordSet: true });
        return ExitCode.ok;
      }),
    );
}
