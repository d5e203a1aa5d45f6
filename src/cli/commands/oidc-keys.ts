import { Command } from 'commander';
import { z } from 'zod';
import { action } from '../action.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { json, jsonOption } from '../options.js';
import { isoTime, isoTimeOrNull, printDone, printList } from '../output.js';

function list(ctx: CliContext): Command {
  return new Command('list')
    .description('list the signing keys of ID tokens, newest first (never their private part)')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = z.object({ json }).parse(options);
        const keys = await ctx.withServices((s) => s.oidc.keys.list());
        const rows = keys.map((key) => ({ kid: key.kid, created: isoTime(key.createdAt), retired: isoTimeOrNull(key.retiredAt) }));
        printList(ctx.io, input.json, rows, 'No signing keys yet: the first is made when the provider first answers.');
        return ExitCode.ok;
      }),
    );
}

function rotate(ctx: CliContext): Command {
  return new Command('rotate')
    .description('sign ID tokens with a new key from now on; the previous one stays published until its tokens expire (OIDC_TOKEN_LIFETIME)')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = z.object({ json }).parse(options);
        const key = await ctx.withServices((s) => s.oidc.keys.rotate());
        printDone(ctx.io, input.json, `New signing key ${key.kid}; instances use it within a second.`, { kid: key.kid, created: isoTime(key.createdAt) });
        return ExitCode.ok;
      }),
    );
}

export function oidcKeysCommand(ctx: CliContext): Command {
  return new Command('oidc-keys').description("manage the OpenID provider's signing keys (docs/oidc.md)").addCommand(list(ctx)).addCommand(rotate(ctx));
}
