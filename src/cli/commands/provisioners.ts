import { Command } from 'commander';
import { z } from 'zod';
import type { IssuedProvisioningToken } from '../../service/provisioning-clients.js';
import { action } from '../action.js';
import type { CliContext, CliIo } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { json, jsonOption, required } from '../options.js';
import { isoTime, printList, printRecord, warn } from '../output.js';
import { recordArgument, type RecordArgument } from '../record-argument.js';
import { simpleCommand } from '../simple-command.js';

/** The provisioning client a command acts on, by name: `provisioners rotate entra`. */
const PROVISIONER: RecordArgument = { name: 'name', description: 'provisioning client name' };

function printIssued(io: CliIo, asJson: boolean, issued: IssuedProvisioningToken): void {
  printRecord(io, asJson, { name: issued.name, token: issued.token });
  warn(io, 'this token is shown only once: copy it into the identity provider now');
}

/** add and rotate: issue a token for the client named, print it once. */
function issuing(ctx: CliContext, verb: string, description: string, issue: (name: string) => Promise<IssuedProvisioningToken>): Command {
  const schema = z.object({ name: required('NAME'), json });
  return recordArgument(ctx.io, new Command(verb).description(description), PROVISIONER)
    .addOption(jsonOption())
    .action(
      action(async (name: unknown, options: object) => {
        const input = schema.parse({ name, ...options });
        printIssued(ctx.io, input.json, await issue(input.name));
        return ExitCode.ok;
      }),
    );
}

function list(ctx: CliContext): Command {
  return new Command('list')
    .description('list the provisioning clients (never their tokens)')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = z.object({ json }).parse(options);
        const clients = await ctx.withServices((s) => s.provisioners.list());
        printList(ctx.io, input.json, clients.map((client) => ({ name: client.name, created: isoTime(client.createdAt) })), 'No provisioning clients.');
        return ExitCode.ok;
      }),
    );
}

export function provisionersCommand(ctx: CliContext): Command {
  return new Command('provisioners')
    .description('manage the provisioning clients (identity providers) that create and change members over SCIM, and their bearer tokens')
    .addCommand(
      issuing(ctx, 'add', 'register a provisioning client and print its bearer token once', (name) => ctx.withServices((s) => s.provisioners.add(name))),
    )
    .addCommand(list(ctx))
    .addCommand(
      issuing(ctx, 'rotate', 'give the client a new bearer token and print it once; the old one stops working', (name) =>
        ctx.withServices((s) => s.provisioners.rotate(name)),
      ),
    )
    .addCommand(
      simpleCommand(ctx, {
        record: PROVISIONER,
        verb: 'remove',
        description: 'delete the provisioning client: its token stops working (SCIM answers 404 once no client is left)',
        run: async (s, name) => {
          await s.provisioners.remove(name);
          return { message: `Provisioning client ${name} removed.`, record: { name, removed: true } };
        },
      }),
    );
}
