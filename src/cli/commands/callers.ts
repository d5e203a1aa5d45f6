import { Command } from 'commander';
import { z } from 'zod';
import type { IssuedCallerPassword } from '../../service/callers.js';
import { normalizeOrigin } from '../../service/return-urls.js';
import { action } from '../action.js';
import type { CliContext, CliIo } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { json, jsonOption, required } from '../options.js';
import { isoTime, printDone, printList, printRecord, warn } from '../output.js';
import { simpleCommand } from '../simple-command.js';

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
  return new Command('add')
    .description('register a calling application and print its security password once')
    .argument('<name>', 'caller name')
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
          const rows = callers.map((c) => ({ ...base(c), origins: c.origins.map((o) => ({ origin: o.origin, receivesToken: o.receivesToken })) }));
          ctx.io.out(`${JSON.stringify(rows, null, 2)}\n`);
        } else {
          const originsText = (c: (typeof callers)[number]) => c.origins.map((o) => (o.receivesToken ? `${o.origin} (token)` : o.origin)).join(' ') || null;
          printList(ctx.io, false, callers.map((c) => ({ ...base(c), origins: originsText(c) })), 'No callers.');
        }
        return ExitCode.ok;
      }),
    );
}

function addOrigin(ctx: CliContext): Command {
  const schema = z.object({ name: required('NAME'), origin, receivesToken: z.boolean().default(false) });
  return new Command('add-origin')
    .description('allow return addresses on this origin after sign-in and sign-out (registering it again replaces the flag)')
    .argument('<name>', 'caller name')
    .argument('<origin>', 'scheme://host[:port] of the partner site, e.g. https://partner.example.org')
    .option('--receives-token', 'append the session token (token=…) to return addresses on this origin after sign-in')
    .action(
      action(async (name: unknown, originArgument: unknown, options: object) => {
        const input = schema.parse({ name, origin: originArgument, ...options });
        const row = await ctx.withServices((s) => s.callers.addOrigin(input.name, input.origin, { receivesToken: input.receivesToken }));
        printDone(ctx.io, `Origin ${row.origin} registered for caller ${input.name}${row.receivesToken ? ' (receives the token)' : ''}.`);
        return ExitCode.ok;
      }),
    );
}

function removeOrigin(ctx: CliContext): Command {
  const schema = z.object({ name: required('NAME'), origin });
  return new Command('remove-origin')
    .description('stop allowing return addresses on this origin for the caller')
    .argument('<name>', 'caller name')
    .argument('<origin>', 'the origin as registered')
    .action(
      action(async (name: unknown, originArgument: unknown) => {
        const input = schema.parse({ name, origin: originArgument });
        if (!(await ctx.withServices((s) => s.callers.removeOrigin(input.name, input.origin)))) {
          ctx.io.err(`error: Caller ${input.name} has not registered the origin ${input.origin}\n`);
          return ExitCode.failure;
        }
        printDone(ctx.io, `Origin ${input.origin} removed from caller ${input.name}.`);
        return ExitCode.ok;
      }),
    );
}

function rotate(ctx: CliContext): Command {
  return new Command('rotate')
    .description('add a password and print it once; the old ones stay valid unless --retire-others')
    .argument('<name>', 'caller name')
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
  const byName = { argument: 'name', argumentDescription: 'caller name' };
  return new Command('callers')
    .description('manage calling applications (partner sites), their security passwords and return-address origins')
    .addCommand(add(ctx))
    .addCommand(list(ctx))
    .addCommand(rotate(ctx))
    .addCommand(addOrigin(ctx))
    .addCommand(removeOrigin(ctx))
    .addCommand(
      simpleCommand(ctx, {
        ...byName,
        verb: 'retire-old',
        description: 'retire every password of the caller except the newest',
        run: async (s, name) => `Retired ${await s.callers.retireOldPasswords(name)} old password(s) of caller ${name}.`,
      }),
    )
    .addCommand(
      simpleCommand(ctx, {
        ...byName,
        verb: 'disable',
        description: "reject the caller's passwords until it is enabled again",
        run: async (s, name) => {
          await s.callers.setEnabled(name, false);
          return `Caller ${name} disabled.`;
        },
      }),
    )
    .addCommand(
      simpleCommand(ctx, {
        ...byName,
        verb: 'enable',
        description: "accept the caller's passwords again",
        run: async (s, name) => {
          await s.callers.setEnabled(name, true);
          return `Caller ${name} enabled.`;
        },
      }),
    )
    .addCommand(
      simpleCommand(ctx, {
        ...byName,
        verb: 'remove',
        description: 'delete the caller and all of its passwords',
        run: async (s, name) => {
          await s.callers.remove(name);
          return `Caller ${name} removed.`;
        },
      }),
    );
}
