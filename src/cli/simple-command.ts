import { Command } from 'commander';
import type { Services } from '../service/index.js';
import { action } from './action.js';
import type { CliContext } from './context.js';
import { ExitCode } from './handle-error.js';
import { required } from './options.js';
import { printDone } from './output.js';

export interface SimpleCommandSpec {
  verb: string;
  description: string;
  /** The one argument, e.g. "name" for <name>. */
  argument: string;
  argumentDescription: string;
  /** Does the work and returns the line to print. */
  run(services: Services, value: string): Promise<string>;
}

/** A command that takes one identifying argument, calls the service once and reports in one line. */
export function simpleCommand(ctx: CliContext, spec: SimpleCommandSpec): Command {
  const schema = required(spec.argument.toUpperCase());
  return new Command(spec.verb)
    .description(spec.description)
    .argument(`<${spec.argument}>`, spec.argumentDescription)
    .action(
      action(async (value: unknown) => {
        const parsed = schema.parse(value);
        printDone(ctx.io, await ctx.withServices((services) => spec.run(services, parsed)));
        return ExitCode.ok;
      }),
    );
}
