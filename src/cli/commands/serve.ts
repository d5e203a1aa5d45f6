import { Command } from 'commander';
import { action } from '../action.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../handle-error.js';

export function serveCommand(ctx: CliContext): Command {
  return new Command('serve')
    .description('run the Authentication.asmx web service (the default command); settings come from the environment')
    .action(
      action(async () => {
        const config = ctx.config();
        // Loaded on demand, so that the admin commands start without the HTTP and SOAP stack.
        const { serve } = await import('../../main.js');
        await serve(config);
        return ExitCode.ok;
      }),
    );
}
