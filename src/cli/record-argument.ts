import { Option, type Command } from 'commander';
import type { CliIo } from './context.js';
import { deprecated } from './deprecated.js';

export interface RecordArgument {
  /** The argument's name, e.g. "id" for <id>. */
  name: string;
  description: string;
  /** The option that named the record before it became the argument, e.g. "--id": still taken, hidden from the help. */
  former?: string;
}

/**
 * The record a command acts on, as its first argument (`members set-password 10042`). Where an option named it
 * before, commander is told that the argument is optional, so that the option may stand in for it with a
 * notice; the usage line still shows it required, and leaving both out is commander's missing-argument error.
 */
export function recordArgument(io: CliIo, command: Command, record: RecordArgument): Command {
  if (record.former === undefined) return command.argument(`<${record.name}>`, record.description);
  const formerOption = new Option(`${record.former} <${record.name}>`).hideHelp();
  const placeholder = record.name.toUpperCase();
  return command
    .argument(`[${record.name}]`, record.description)
    .usage(`[options] <${record.name}>`)
    .addOption(formerOption)
    .hook('preAction', () => {
      const given: unknown = command.processedArgs[0];
      const former: unknown = command.getOptionValue(formerOption.attributeName());
      if (former === undefined) {
        if (given === undefined) command.error(`error: missing required argument '${record.name}'`);
        return;
      }
      if (given !== undefined) command.error(`error: ${record.former} is the former spelling of ${placeholder}: give ${placeholder} alone`);
      deprecated(io, command, `${record.former} ${placeholder}`, placeholder);
      command.processedArgs[0] = former;
    });
}
