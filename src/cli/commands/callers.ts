import { Command } from 'commander';
import { z } from 'zod';
import type { IssuedCallerPassword } from '../../service/callers.js';
import { normalizeOrigin } from '../../service/return-urls.js';
import { action } from '../action.js';
import type { CliContext, CliIo } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { json, jsonOption, required } from '../options.js';
import { isoTime, printDone, printJson, printList, printRecord, warn } from '../output.js';
import { recordArgument, type RecordArgument } from '../record-argument.js';
import { simpleCommand } from '../simple-command.js';

/** The caller a command acts on, by name: `callers rotate my-portal`. */
const CALLER: RecordArgument = { name: 'name', description: 'caller name' };

const PASSWORD_HELP = "use this password (e.g. the old service's) instead of a generated one; it stays in your shell history";

const issueInput = z.object({ name: required('NAME'), password: z.string().optional(), json });

const origin = required('ORIGIN').transform((v, ctx) => {
  const normalized = normalizeOrigin(v);
  if (normalized === null) ctx.addIssue({ code: 'custom', message: 'ORIGIN must be an http(s) origin such as https://partner.example.org' });
  return normalized ?? z.NEVER;
});

function printIssued(io: CliIo, asJson: boolean, issued: IssuedCallerPassword, extra: Record<string, string> = {}): void {
  printRecord(io, asJson, { name: issued.caller.name, password: issued.password, ...extra });
  warn(io, 'this password is shown only once: store it now');
}

function add(ctx: CliContext): Command {
  return recordArgument(ctx.io, new Command('add').description('register a calling application and print its security password once'), CALLER)
    .option('--password <password>', PASSWORD_HELP)
    .addOption(jsonOption())
    .action(
      action(async (name: unknown, options: object) => {
        const input = issueInput.parse({ name, ...options });
        const issued = await ctx.withServices((s) => s.callers.add(input.name, input.password));
        printIssued(ctx.io, input.json, issued);
        return ExitCode.ok;
      }),
    );
}

function list(ctx: CliContext): Command {
  return new Command('list')
    .description('list callers with their number of valid passwords and their return-address origins')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = z.object({ json }).parse(options);
        const callers = await ctx.withServices((s) => s.callers.list());
        const base = (c: (typeof callers)[number]) => ({ name: c.name, enabled: c.enabled, passwords: c.passwords.length, created: isoTime(c.createdAt) });
        if (input.json) {
          printJson(ctx.io, callers.map((c) => ({ ...base(c), origins: c.origins.map((o) => ({ origin: o.origin, receivesToken: o.receivesToken })) })));
        } else {
          const originsText = (c: (typeof callers)[number]) => c.origins.map((o) => (o.receivesToken ? `${o.origin} (token)` : o.origin)).join(' ') || null;
          printList(ctx.io, false, callers.map((c) => ({ ...base(c), origins: originsText(c) })), 'No callers.');
        }
        return ExitCode.ok;
      }),
    );
}

function addOrigin(ctx: CliContext): Command {
  const schema = z.object({ name: required('NAME'), origin, receivesToken: z.boolean().default(false), json });
  const command = new Command('add-origin').description(
    'allow return addresses on this origin after sign-in and sign-out (registering it again replaces the flag)',
  );
  return recordArgument(ctx.io, command, CALLER)
    .argument('<origin>', 'scheme://host[:port] of the partner site, e.g. https://partner.example.org')
    .option('--receives-token', 'append the session token (token=…) to return addresses on this origin after sign-in')
    .addOption(jsonOption())
    .action(
      action(async (name: unknown, originArgument: unknown, options: object) => {
        const input = schema.parse({ name, origin: originArgument, ...options });
        const row = await ctx.withServices((s) => s.callers.addOrigin(input.name, input.origin, { receivesToken: input.receivesToken }));
        const message = `Origin ${row.origin} registered for caller ${input.name}${row.receivesToken ? ' (receives the token)' : ''}.`;
        printDone(ctx.io, input.json, message, { caller: input.name, origin: row.origin, receivesToken: row.receivesToken });
        return ExitCode.ok;
      }),
    );
}

function removeOrigin(ctx: CliContext): Command {
  const schema = z.object({ name: required('NAME'), origin, json });
  return recordArgument(ctx.io, new Command('remove-origin').description('stop allowing return addresses on this origin for the caller'), CALLER)
    .argument('<origin>', 'the origin as registered')
    .addOption(jsonOption())
    .action(
      action(async (name: unknown, originArgument: unknown, options: object) => {
        const input = schema.parse({ name, origin: originArgument, ...options });
        await ctx.withServices((s) => s.callers.removeOrigin(input.name, input.origin));
        const message = `Origin ${input.origin} removed from caller ${input.name}.`;
        printDone(ctx.io, input.json, message, { caller: input.name, origin: input.origin, removed: true });
        return ExitCode.ok;
      }),
    );
}

function rotate(ctx: CliContext): Command {
  const command = new Command('rotate').description('add a password and print it once; the old ones stay valid unless --retire-others');
  return recordArgument(ctx.io, command, CALLER)
    .option('--password <password>', PASSWORD_HELP)
    .option('--retire-others', 'retire every other password of this caller now')
    .addOption(jsonOption())
    .action(
      action(async (name: unknown, options: object) => {
        const input = issueInput.extend({ retireOthers: z.boolean().default(false) }).parse({ name, ...options });
        const issued = await ctx.withServices((s) =>
          s.callers.rotate(input.name, { password: input.password, retireOthers: input.retireOthers }),
        );
        printIssued(ctx.io, input.json, issued, { olderPasswords: input.retireOthers ? 'retired' : 'still valid' });
        if (!input.retireOthers) warn(ctx.io, `the older passwords stay valid until "callers retire-old ${input.name}"`);
        return ExitCode.ok;
      }),
    );
}

export function callersCommand(ctx: CliContext): Command {
  return new Command('callers')
    .description('manage calling applications (partner sites), their security passwords and return-address origins')
    .addCommand(add(ctx))
    .addCommand(list(ctx))
    .addCommand(rotate(ctx))
    .addCommand(addOrigin(ctx))
    .addCommand(removeOrigin(ctx))
    .addCommand(
      simpleCommand(ctx, {
        record: CALLER,
        verb: 'retire-old',
        description: 'retire every password of the caller except the newest',
        run: async (s, name) => {
          const retired = await s.callers.retireOldPasswords(name);
          return { message: `Retired ${retired} old password(s) of caller ${name}.`, record: { name, retired } };
        },
      }),
    )
    .addCommand(
      simpleCommand(ctx, {
        record: CALLER,
        verb: 'disable',
        description: "reject the caller's passwords until it is enabled again",
        run: async (s, name) => {
          await s.callers.setEnabled(name, false);
          return { message: `Caller ${name} disabled.`, record: { name, enabled: false } };
        },
      }),
    )
    .addCommand(
      simpleCommand(ctx, {
        record: CALLER,
        verb: 'enable',
        description: "accept the caller's passwords again",
        run: async (s, name) => {
          await s.callers.setEnabled(name, true);
          return { message: `Caller ${name} enabled.`, record: { name, enabled: true } };
        },
      }),
    )
    .addCommand(
      simpleCommand(ctx, {
        record: CALLER,
        verb: 'remove',
        description: 'delete the caller and all of its passwords',
        run: async (s, name) => {
          await s.callers.remove(name);
          return { message: `Caller ${name} removed.`, record: { name, removed: true } };
        },
      }),
    );
}
