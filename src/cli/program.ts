import { Command } from 'commander';
import { exitCodeOf } from './action.js';
import { callersCommand } from './commands/callers.js';
import { configCommand } from './commands/config.js';
import { membersCommand } from './commands/members/index.js';
import { oidcClientsCommand } from './commands/oidc-clients.js';
import { oidcKeysCommand } from './commands/oidc-keys.js';
import { samlKeysCommand } from './commands/saml-keys.js';
import { samlSpsCommand } from './commands/saml-sps.js';
import { provisionersCommand } from './commands/provisioners.js';
import { serveCommand } from './commands/serve.js';
import { sessionsCommand } from './commands/sessions.js';
import { staffCommand } from './commands/staff.js';
import { eventsCommand } from './commands/events.js';
import { storeCommand } from './commands/store.js';
import type { CliContext, CliIo } from './context.js';
import { handleError } from './handle-error.js';

/** addCommand() does not pass settings down the way command() does, so every command gets them here. */
function routeOutput(command: Command, io: CliIo): void {
  command
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text) })
    .showHelpAfterError('(add --help for usage)');
  for (const sub of command.commands) routeOutput(sub, io);
}

/**
 * serve is the default command only while the command line names none (it is empty or starts with an option):
 * Commander hands any word to the default command, so a mistyped command (`memebrs list`) was refused as serve's
 * "too many arguments" rather than as an unknown command with the nearest name suggested.
 */
function namesNoCommand(args: readonly string[]): boolean {
  const [first] = args;
  return first === undefined || first.startsWith('-');
}

export function createProgram(ctx: CliContext, version: string, args: readonly string[] = []): Command {
  const program = new Command('authentication-asmx')
    .description('Drop-in replacement for the legacy ASP.NET Authentication.asmx web service, and its admin commands')
    .version(version)
    .addCommand(serveCommand(ctx), { isDefault: namesNoCommand(args) })
    .addCommand(callersCommand(ctx))
    .addCommand(membersCommand(ctx))
    .addCommand(sessionsCommand(ctx))
    .addCommand(eventsCommand(ctx))
    .addCommand(provisionersCommand(ctx))
    .addCommand(oidcClientsCommand(ctx))
    .addCommand(oidcKeysCommand(ctx))
    .addCommand(samlSpsCommand(ctx))
    .addCommand(samlKeysCommand(ctx))
    .addCommand(staffCommand(ctx))
    .addCommand(storeCommand(ctx))
    .addCommand(configCommand(ctx));
  routeOutput(program, ctx.io);
  return program;
}

/** Runs one command line (without the node and script arguments) and returns its exit code. */
export async function runCli(args: readonly string[], ctx: CliContext, version: string): Promise<number> {
  const program = createProgram(ctx, version, args);
  try {
    await program.parseAsync(args, { from: 'user' });
    return exitCodeOf(program);
  } catch (error) {
    return handleError(error, ctx.io);
  }
}
