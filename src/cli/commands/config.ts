import { Command, Option } from 'commander';
import { z } from 'zod';
import { shortened } from '../../config/settings.js';
import { action } from '../action.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { json, jsonOption } from '../options.js';
import { printList } from '../output.js';
import { fromWebConfigCommand } from './config-from-web-config.js';

/** Long values (documentation texts) are cut in the table, so that it stays readable; --json has them whole. */
const MAX_SHOWN = 60;

function show(ctx: CliContext): Command {
  const schema = z.object({ json, all: z.boolean().default(false) });
  return new Command('show')
    .description('print the effective settings, where each came from (environment, file, profile, default); secrets masked')
    .addOption(new Option('--all', 'also list the settings left at their defaults'))
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = schema.parse(options);
        const config = ctx.config();
        const rows = config.settings
          .filter((setting) => input.all || setting.source !== 'default')
          .map(({ name, value, source }) => ({ name, value: input.json ? value : shortened(value, MAX_SHOWN), source }));
        if (!input.json) ctx.io.out(`Profile: ${config.profile ?? 'none'}\n`);
        printList(ctx.io, input.json, rows, 'Every setting is at its default (add --all to list them).');
        return ExitCode.ok;
      }),
    );
}

export function configCommand(ctx: CliContext): Command {
  return new Command('config')
    .description("the service's settings, as the environment, CONFIG_FILE and PROFILE give them")
    .addCommand(show(ctx))
    .addCommand(fromWebConfigCommand(ctx));
}
