import { Command, Option } from 'commander';
import { z } from 'zod';
import type { MemberAttributes } from '../../../service/index.js';
import { action } from '../../action.js';
import type { CliContext } from '../../context.js';
import { ExitCode } from '../../handle-error.js';
import { emailOption, json, jsonOption, optionalText, repeatable, required } from '../../options.js';
import { recordArgument } from '../../record-argument.js';
import { attributeOptions, givenAttributes, withAttributeOptions } from './attribute-options.js';
import { printMember } from './member-fields.js';
import { MEMBER_ID } from './member-id.js';

/**
 * The member's attributes with the options' changes: each attribute given replaces its value (the roles given
 * replace the list; an empty text removes the attribute), the extras given are set, the removed ones removed.
 */
function mergedAttributes(current: MemberAttributes, given: MemberAttributes, clearRoles: boolean, removed: string[]): MemberAttributes {
  const merged = { ...current, ...given, extra: { ...current.extra, ...given.extra } };
  for (const key of removed) delete merged.extra[key];
  if (clearRoles) delete merged.roles;
  return merged;
}

export function updateCommand(ctx: CliContext): Command {
  const schema = z
    .object({
      id: required('ID'),
      email: emailOption('--email'),
      firstName: optionalText,
      lastName: optionalText,
      ...attributeOptions,
      clearRoles: z.boolean().default(false),
      removeAttribute: z.array(z.string()).default([]),
      json,
    })
    .refine(
      (input) => !input.attribute?.some(([key]) => input.removeAttribute.includes(key)),
      '--attribute and --remove-attribute name the same key',
    );
  const command = recordArgument(
    ctx.io,
    new Command('update').description("change a member's email, names or attributes; what is not given stays as it is"),
    MEMBER_ID,
  )
    .option('--email <email>', 'email address')
    .option('--first-name <name>', 'first name')
    .option('--last-name <name>', 'last name');
  return withAttributeOptions(ctx.io, command)
    .addOption(new Option('--clear-roles', 'remove every role').conflicts('role'))
    .option('--remove-attribute <key>', 'remove a tenant-specific attribute; repeat for each', repeatable)
    .addOption(jsonOption())
    .action(
      action(async (id: unknown, options: object) => {
        const { id: memberId, json: asJson, email, firstName, lastName, clearRoles, removeAttribute, ...attributeInput } = schema.parse({
          ...options,
          id,
        });
        const given = givenAttributes(attributeInput);
        const changesAttributes = Object.keys(given).length > 0 || clearRoles || removeAttribute.length > 0;
        // Merged into the member as read; made again from a fresh read when another writer changed it meanwhile.
        const row = await ctx.withServices((s) =>
          s.members.update(memberId, (current) => ({
            email,
            firstName,
            lastName,
            attributes: changesAttributes ? mergedAttributes(current.attributes, given, clearRoles, removeAttribute) : undefined,
          })),
        );
        printMember(ctx.io, asJson, row);
        return ExitCode.ok;
      }),
    );
}
