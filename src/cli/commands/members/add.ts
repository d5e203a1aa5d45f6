import { Command } from 'commander';
import { z } from 'zod';
import { action } from '../../action.js';
import type { CliContext } from '../../context.js';
import { ExitCode } from '../../handle-error.js';
import { emailOption, json, jsonOption, optionalText, required } from '../../options.js';
import { attributeOptions, givenAttributes, withAttributeOptions } from './attribute-options.js';
import { printMember } from './member-fields.js';

/** `members add`: a new record, so its fields, the id among them, are options. */
export function addCommand(ctx: CliContext): Command {
  const schema = z.object({
    id: required('--id').optional(),
    username: required('--username'),
    email: emailOption('--email'),
    firstName: optionalText,
    lastName: optionalText,
    ...attributeOptions,
    json,
  });
  const command = new Command('add')
    .description('add a member that sessions can sign in')
    .option('--id <id>', 'member id, as the membership system knows it (issued when left out and member ids are GUIDs)')
    .requiredOption('--username <username>', 'user name')
    .option('--email <email>', 'email address')
    .option('--first-name <name>', 'first name')
    .option('--last-name <name>', 'last name');
  return withAttributeOptions(ctx.io, command)
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const { json: asJson, id, username, email, firstName, lastName, ...attributes } = schema.parse(options);
        const member = { id, username, email, firstName, lastName, attributes: givenAttributes(attributes) };
        printMember(ctx.io, asJson, await ctx.withServices((s) => s.members.add(member)));
        return ExitCode.ok;
      }),
    );
}
