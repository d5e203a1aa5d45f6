import { Command, Option } from 'commander';
import { z } from 'zod';
import { parseDurationSeconds } from '../../config/duration.js';
import { EVENT_TYPES, MAX_EVENT_LIMIT, DEFAULT_EVENT_LIMIT, type EventRecord } from '../../service/index.js';
import { action } from '../action.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { json, jsonOption, required } from '../options.js';
import { isoTime, printJson, printList, StreamedJsonObject } from '../output.js';

const LIMIT_HELP = `--limit must be a whole number from 1 to ${MAX_EVENT_LIMIT}`;
const WHEN_HELP = 'an ISO 8601 date or time (2026-03-01, 2026-03-01T09:30:00Z) or a time ago (90m, 12h, 7d)';

/** WHEN: a duration ago (as the settings write durations) or an ISO 8601 date or time; epoch milliseconds. */
function when(name: string) {
  return required(name).transform((text, ctx) => {
    const ago = parseDurationSeconds(text);
    const time = ago !== null ? Date.now() - ago * 1000 : /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(time)) {
      ctx.addIssue({ code: 'custom', message: `${name} must be ${WHEN_HELP}` });
      return z.NEVER;
    }
    return time;
  });
}

/** An event as the commands print it: its time in ISO 8601, the actor as one object. */
function printed(event: EventRecord) {
  const { id, time, ...rest } = event;
  return { time: isoTime(time), ...rest, id };
}

function list(ctx: CliContext): Command {
  const schema = z.object({
    member: required('--member').optional(),
    type: z.enum(EVENT_TYPES, { message: `--type must be one of ${EVENT_TYPES.join(', ')}` }).optional(),
    since: when('--since').optional(),
    limit: z
      .string()
      .regex(/^\d+$/, LIMIT_HELP)
      .transform(Number)
      .pipe(z.number().min(1, LIMIT_HELP).max(MAX_EVENT_LIMIT, LIMIT_HELP))
      .optional(),
    json,
  });
  return new Command('list')
    .description('list the recorded events (sign-ins, sign-outs, changes…), newest first')
    .option('--member <id>', "only this member's events")
    .addOption(new Option('--type <type>', 'only events of this type').choices(EVENT_TYPES))
    .option('--since <when>', `only events at or after WHEN: ${WHEN_HELP}`)
    .option('--limit <n>', `at most this many (default ${DEFAULT_EVENT_LIMIT}, at most ${MAX_EVENT_LIMIT})`)
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = schema.parse(options);
        const events = await ctx.withServices((s) => s.events.list({ memberId: input.member, type: input.type, since: input.since, limit: input.limit }));
        if (input.json) {
          printJson(ctx.io, events.map(printed));
          return ExitCode.ok;
        }
        const rows = events.map((event) => ({
          time: isoTime(event.time),
          type: event.type,
          member: event.memberId,
          actor: event.actor.id === undefined ? event.actor.kind : `${event.actor.kind} ${event.actor.id}`,
          via: event.via,
          client: event.clientAddress,
          outcome: event.outcome,
          reason: event.reason,
        }));
        printList(ctx.io, false, rows, 'No events.');
        return ExitCode.ok;
      }),
    );
}

function exportEvents(ctx: CliContext): Command {
  const schema = z.object({ since: when('--since'), json });
  return new Command('export')
    .description('write the events at or after WHEN, oldest first, as JSON lines for a log platform (with --json, one document)')
    .requiredOption('--since <when>', `the first time to export: ${WHEN_HELP}`)
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = schema.parse(options);
        // Streamed either way: an export may hold millions of events.
        const document = input.json ? new StreamedJsonObject(ctx.io, 'events') : null;
        let count = 0;
        await ctx.withServices(async (s) => {
          for await (const event of s.events.export(input.since)) {
            count += 1;
            if (document) document.item(printed(event));
            else ctx.io.out(`${JSON.stringify(printed(event))}\n`);
          }
        });
        document?.end({ count });
        return ExitCode.ok;
      }),
    );
}

export function eventsCommand(ctx: CliContext): Command {
  return new Command('events').description('read the recorded events: who signed in or failed to, and what changed').addCommand(list(ctx)).addCommand(exportEvents(ctx));
}
