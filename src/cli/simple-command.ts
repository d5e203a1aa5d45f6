import { Command } from 'commander';
import { z } from 'zod';
import type { Services } from '../service/index.js';
import { action } from './action.js';
import type { CliContext } from './context.js';
import { ExitCode } from './handle-error.js';
import { json, jsonOption, required } from './options.js';
import { printDone } from './output.js';
import { recordArgument, type RecordArgument } from './record-argument.js';

/** What a simple command did: the line people read, and the record --json prints instead. */
export interface Done {
  message: string;
  record: Record<string, unknown>;
}

export interface SimpleCommandSpec {
  verb: string;
  description: string;
  /** The record it acts on, e.g. { name: "name", description: "caller name" } for <name>. */
  record: RecordArgument;
  /** Does the work and says what it did. */
  run(services: Services, value: string): Promise<Done>;
}

/** A command that acts on one record, calls the service once and reports in one line (or one JSON record). */
export function simpleCommand(ctx: CliContext, spec: SimpleCommandSpec): Command {
  const schema = z.object({ value: required(spec.record.name.toUpperCase()), json });
  return recordArgument(ctx.io, new Command(spec.verb).description(spec.description), spec.record)
    .addOption(jsonOption())
    .action(
      action(async (value: unknown, options: object) => {
        const input = schema.parse({ value, ...options });
        const done = await ctx.withServices((services) => spec.run(services, input.value));
        printDone(ctx.io, input.json, done.message, done.record);
        return ExitCode.ok;
      }),
    );
}
