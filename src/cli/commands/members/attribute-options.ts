import { Option, type Command } from 'commander';
import { z } from 'zod';
import { EXTRA_KEY } from '../../../service/extra-key.js';
import { definedOnly, parseRole } from '../../../service/member-attributes.js';
import type { MemberAttributes } from '../../../service/index.js';
import type { CliIo } from '../../context.js';
import { deprecated } from '../../deprecated.js';
import { optionalText, repeatable } from '../../options.js';

const roleOption = z.string().transform((pair, ctx) => {
  const role = parseRole(pair);
  if (!role) ctx.addIssue({ code: 'custom', message: `--role must be id:name, not "${pair}"` });
  return role ?? z.NEVER;
});

const extraOption = z.string().transform((pair, ctx) => {
  const equals = pair.indexOf('=');
  const key = pair.slice(0, Math.max(equals, 0));
  if (!EXTRA_KEY.test(key)) {
    const message = `--attribute must be key=value, the key letters, digits, _, . and - (64 at most) starting with a letter or _, not "${pair}"`;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  }
  return [key, pair.slice(equals + 1)] as const;
});

/** The attribute options of add and update, named as commander names them (`--contact-number` → contactNumber). */
export const attributeOptions = {
  isMember: z
    .enum(['yes', 'no'])
    .transform((answer) => answer === 'yes')
    .optional(),
  contactNumber: optionalText,
  labelName: optionalText,
  organisationId: optionalText,
  organisationName: optionalText,
  priceLevelId: optionalText,
  priceLevelName: optionalText,
  role: z.array(roleOption).optional(),
  attribute: z.array(extraOption).optional(),
};

type AttributeOptions = z.infer<z.ZodObject<typeof attributeOptions>>;

/**
 * `--member` and `--no-member` said yes or no before; they became `--is-member yes|no`, because `--member`
 * names a member id elsewhere (`sessions list --member ID`). They still work, hidden, with a notice.
 */
function withFormerMemberFlags(io: CliIo, command: Command): Command {
  return command
    .addOption(new Option('--member').hideHelp().conflicts('isMember'))
    .addOption(new Option('--no-member').hideHelp().conflicts('isMember'))
    .hook('preAction', () => {
      const former: unknown = command.getOptionValue('member');
      if (typeof former !== 'boolean') return;
      const answer = former ? 'yes' : 'no';
      deprecated(io, command, former ? '--member' : '--no-member', `--is-member ${answer}`);
      command.setOptionValue('isMember', answer);
    });
}

export function withAttributeOptions(io: CliIo, command: Command): Command {
  command
    .addOption(new Option('--is-member <yes|no>', 'whether a member (pa_member)').choices(['yes', 'no']))
    .option('--contact-number <number>', 'contact number (pa_contactnumber)')
    .option('--label-name <name>', 'label name (pa_labelname)')
    .option('--organisation-id <id>', "the member's organisation's id (parentcustomerid_id)")
    .option('--organisation-name <name>', "the member's organisation's name (parentcustomerid)")
    .option('--price-level-id <id>', 'price level id (defaultpricelevelid_id)')
    .option('--price-level-name <name>', 'price level name (defaultpricelevelid)')
    .option('--role <id:name>', 'a web role (pa_webroles); repeat for each', repeatable)
    .option('--attribute <key=value>', 'a tenant-specific attribute; repeat for each', repeatable);
  return withFormerMemberFlags(io, command);
}

/** The attributes the options give; the ones not given are left out. */
export function givenAttributes(options: AttributeOptions): MemberAttributes {
  const { isMember, role, attribute, ...texts } = options;
  return definedOnly({ isMember, ...texts, roles: role, extra: attribute && Object.fromEntries(attribute) });
}
