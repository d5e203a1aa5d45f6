import { Command } from 'commander';
import { z } from 'zod';
import type { SessionRow } from '../../service/index.js';
import { action } from '../action.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { cookieDomain, json, jsonOption, required } from '../options.js';
import { isoTime, isoTimeOrNull, printList, printRecord, warn, type Fields } from '../output.js';
import { recordArgument, type RecordArgument } from '../record-argument.js';
import { simpleCommand } from '../simple-command.js';

/** The member a session is created for or ended for; `--member ID` named it before. */
const MEMBER: RecordArgument = { name: 'member_id', description: 'member id', former: '--member' };

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
  const schema = z.object({ member: required('MEMBER_ID'), domain: cookieDomain('--domain'), json });
  const command = new Command('create').description('sign a member in and print the login cookie and token once (for integrators and support)');
  return recordArgument(ctx.io, command, MEMBER)
    .requiredOption('--domain <domain>', 'cookie domain the session is valid for, e.g. example.com')
    .addOption(jsonOption())
    .action(
      action(async (member: unknown, options: object) => {
        const input = schema.parse({ ...options, member });
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

/** A list is filtered, not a record acted on: the member stays an option here. */
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

export function sessionsCommand(ctx: CliContext): Command {
  return new Command('sessions')
    .description('create, list and revoke sign-in sessions')
    .addCommand(create(ctx))
    .addCommand(list(ctx))
    .addCommand(
      simpleCommand(ctx, {
        verb: 'revoke',
        description: 'sign one session out',
        record: { name: 'session_id', description: 'session id, as sessions list shows it' },
        run: async (s, id) => {
          await s.sessions.revoke(id);
          return { message: `Session ${id} revoked.`, record: { id, revoked: true } };
        },
      }),
    )
    .addCommand(
      simpleCommand(ctx, {
        verb: 'revoke-all',
        description: 'sign a member out everywhere',
        record: MEMBER,
        run: async (s, member) => {
          const revoked = await s.sessions.revokeAllOf(member);
          return { message: `Revoked ${revoked} session(s) of member ${member}.`, record: { member, revoked } };
        },
      }),
    );
}
