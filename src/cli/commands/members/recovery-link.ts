import { Command } from 'commander';
import { z } from 'zod';
import { action } from '../../action.js';
import type { CliContext } from '../../context.js';
import { ExitCode } from '../../handle-error.js';
import { json, jsonOption, required } from '../../options.js';
import { isoTime, printJson } from '../../output.js';
import { recordArgument } from '../../record-argument.js';
import { ConfigError } from '../../../config/config-error.js';
import { recoveryLink } from '../../../service/recovery.js';
import { MEMBER_ID } from './member-id.js';

/**
 * `members recovery-link`: a one-time link for support to hand a member who cannot get the mail (or where no
 * SMTP_URL is set). It voids the member's earlier links, works once, for RECOVERY_TOKEN_TTL, and is printed, never
 * logged. The page it opens is at PUBLIC_URL, which the command needs.
 */
export function recoveryLinkCommand(ctx: CliContext): Command {
  const command = new Command('recovery-link').description(
    'print a one-time link with which the member chooses a new password (it voids earlier links; needs PUBLIC_URL)',
  );
  return recordArgument(ctx.io, command, MEMBER_ID)
    .addOption(jsonOption())
    .action(
      action(async (id: unknown, options: object) => {
        const input = z.object({ id: required('ID'), json }).parse({ ...options, id });
        const config = ctx.config();
        if (config.publicUrl === undefined) throw new ConfigError(['PUBLIC_URL: must be set for a recovery link (the address members open it at)']);
        const issued = await ctx.withServices((s) => s.recovery.issue(input.id));
        const link = recoveryLink(`${new URL(config.publicUrl).origin}${config.signin.recoveryPaths.reset}`, issued.token);
        const expiresAt = isoTime(issued.expiresAt);
        if (input.json) printJson(ctx.io, { link, expiresAt });
        else ctx.io.out(`${link}\nThe link works once, until ${expiresAt}. Give it to the member only.\n`);
        return ExitCode.ok;
      }),
    );
}
