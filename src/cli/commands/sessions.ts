import { Command } from 'commander';
import { z } from 'zod';
import type { SessionRow } from '../../service/index.js';
import { action } from '../action.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { cookieDomain, json, jsonOption, required } from '../options.js';
import { isoTime, isoTimeOrNull, printDone, printList, printRecord, warn, type Fields } from '../output.js';
import { simpleCommand } from '../simple-command.js';

/** Picks fields one by one: a session row also holds the cookie and token hashes, which are never shown. */
function sessionFields(s: SessionRow): Fields {
  return {
    id: s.id,
    member: s.memberId,
    domain: s.cookieDomain,
    created: isoTime(s.createdAt),
    lastSeen: isoTime(s.lastSeenAt),
    expires: isoTime(s.expiresAt),
    revoked: isoTimeOrNull(s.revokedAt),
  };
}

function create(ctx: CliContext): Command {
  const schema = z.object({ member: required('--member'), domain: cookieDomain('--domain'), json });
  return new Command('create')
    .description('sign a member in and print the login cookie and token once (for integrators and support)')
    .requiredOption('--member <id>', 'member id')
    .requiredOption('--domain <domain>', 'cookie domain the session is valid for, e.g. example.com')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = schema.parse(options);
        const { session, cookie, token } = await ctx.withServices((s) => s.sessions.create(input.member, input.domain));
        printRecord(ctx.io, input.json, {
          id: session.id,
          member: session.memberId,
          domain: session.cookieDomain,
          cookie,
          token,
          created: isoTime(session.createdAt),
          expires: isoTime(session.expiresAt),
        });
        warn(ctx.io, 'the cookie and token are shown only once');
        return ExitCode.ok;
      }),
    );
}

function list(ctx: CliContext): Command {
  const schema = z.object({ member: required('--member').optional(), all: z.boolean().default(false), json });
  return new Command('list')
    .description('list live sessions (never their cookie or token)')
    .option('--member <id>', 'only the sessions of this member')
    .option('--all', 'include revoked, expired and idle sessions')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = schema.parse(options);
        const sessions = await ctx.withServices((s) => s.sessions.list({ memberId: input.member, includeEnded: input.all }));
        printList(ctx.io, input.json, sessions.map(sessionFields), input.all ? 'No sessions.' : 'No live sessions.');
        return ExitCode.ok;
      }),
    );
}

function revokeAll(ctx: CliContext): Command {
  const schema = z.object({ member: required('--member') });
  return new Command('revoke-all')
    .description('sign a member out everywhere')
    .requiredOption('--member <id>', 'member id')
    .action(
      action(async (options: object) => {
        const { member } = schema.parse(options);
        const revoked = await ctx.withServices((s) => s.sessions.revokeAllOf(member));
        printDone(ctx.io, `Revoked ${revoked} session(s) of member ${member}.`);
        return ExitCode.ok;
      }),
    );
}

export function sessionsCommand(ctx: CliContext): Command {
  return new Command('sessions')
    .description('create, list and revoke sign-in sessions')
    .addCommand(create(ctx))
    .addCommand(list(ctx))
    .addCommand(
      simpleCommand(ctx, {
        verb: 'revoke',
        description: 'sign one session out',
        argument: 'session_id',
        argumentDescription: 'session id, as sessions list shows it',
        run: async (s, id) => {
          await s.sessions.revoke(id);
          return `Session ${id} revoked.`;
        },
      }),
    )
    .addCommand(revokeAll(ctx));
}
