import { Command } from 'commander';
import { z } from 'zod';
import { clientUriProblem, type IssuedOidcClient, type OidcClientRow } from '../../service/oidc/index.js';
import { action } from '../action.js';
import type { CliContext, CliIo } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { json, jsonOption, repeatable, required } from '../options.js';
import { isoTime, printJson, printList, printRecord, warn } from '../output.js';
import { recordArgument, type RecordArgument } from '../record-argument.js';
import { simpleCommand } from '../simple-command.js';

/** The client a command acts on, by name: `oidc-clients rotate portal`. */
const CLIENT: RecordArgument = { name: 'name', description: 'OpenID client name' };

function uri(option: string) {
  return required(option).superRefine((value, ctx) => {
    const problem = clientUriProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: `${option} ${value} ${problem}` });
  });
}

/** Why a client just added cannot be used yet (docs/oidc.md: the provider answers only while PUBLIC_URL is set). */
const NO_PUBLIC_URL = 'PUBLIC_URL is not set: the OpenID provider is off until it is (it is the issuer), and discovery answers 404';

/**
 * The client's id and secret, the secret shown this once (a public client has none); `warnings` on stderr, and
 * with --json in the document too.
 */
function printIssued(io: CliIo, asJson: boolean, issued: IssuedOidcClient, warnings: readonly string[] = []): void {
  const { client, secret } = issued;
  const fields = { client_id: client.id, ...(secret === null ? {} : { client_secret: secret }) };
  if (asJson && warnings.length > 0) printJson(io, { ...fields, warnings });
  else printRecord(io, asJson, fields);
  if (secret !== null) warn(io, 'the client secret is shown only once: copy it into the site now');
  for (const warning of warnings) warn(io, warning);
}

function clientFields(client: OidcClientRow) {
  return {
    name: client.name,
    clientId: client.id,
    type: client.secretHash === null ? 'public' : 'confidential',
    firstParty: client.firstParty,
    created: isoTime(client.createdAt),
  };
}

function add(ctx: CliContext): Command {
  const schema = z.object({
    name: required('NAME'),
    redirectUri: z.array(uri('--redirect-uri')),
    postLogoutRedirectUri: z.array(uri('--post-logout-redirect-uri')).default([]),
    backchannelLogoutUri: uri('--backchannel-logout-uri').optional(),
    public: z.boolean().default(false),
    firstParty: z.boolean().default(false),
    json,
  });
  const command = new Command('add').description('register a site that signs members in with OpenID Connect, and print its client id and secret once');
  return recordArgument(ctx.io, command, CLIENT)
    .requiredOption('--redirect-uri <uri>', 'where members are sent back after signing in, matched exactly (repeat for more)', repeatable)
    .option('--post-logout-redirect-uri <uri>', 'where members may be sent after signing out through the site (repeat for more)', repeatable)
    .option('--backchannel-logout-uri <uri>', "where the site is told that a member's session ended (back-channel logout)")
    .option('--public', 'a single-page or native app: no secret, PKCE required')
    .option('--first-party', "the organisation's own site: members are not asked to consent")
    .addOption(jsonOption())
    .action(
      action(async (name: unknown, options: object) => {
        const input = schema.parse({ name, ...options });
        const issued = await ctx.withServices((s) =>
          s.oidc.clients.add(input.name, {
            redirectUris: input.redirectUri,
            postLogoutRedirectUris: input.postLogoutRedirectUri,
            backchannelLogoutUri: input.backchannelLogoutUri,
            public: input.public,
            firstParty: input.firstParty,
          }),
        );
        printIssued(ctx.io, input.json, issued, ctx.config().publicUrl === undefined ? [NO_PUBLIC_URL] : []);
        return ExitCode.ok;
      }),
    );
}

function list(ctx: CliContext): Command {
  return new Command('list')
    .description('list the OpenID clients (never their secrets)')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = z.object({ json }).parse(options);
        const clients = await ctx.withServices((s) => s.oidc.clients.list());
        printList(ctx.io, input.json, clients.map(clientFields), 'No OpenID clients.');
        return ExitCode.ok;
      }),
    );
}

function show(ctx: CliContext): Command {
  const schema = z.object({ name: required('NAME'), json });
  return recordArgument(ctx.io, new Command('show').description('show an OpenID client and its URIs (never its secret)'), CLIENT)
    .addOption(jsonOption())
    .action(
      action(async (name: unknown, options: object) => {
        const input = schema.parse({ name, ...options });
        const client = await ctx.withServices((s) => s.oidc.clients.get(input.name));
        const uris = {
          redirectUris: client.redirectUris,
          postLogoutRedirectUris: client.postLogoutRedirectUris,
          backchannelLogoutUri: client.backchannelLogoutUri,
        };
        if (input.json) printJson(ctx.io, { ...clientFields(client), ...uris });
        else {
          const postLogout = uris.postLogoutRedirectUris.join(' ') || null;
          printRecord(ctx.io, false, { ...clientFields(client), ...uris, redirectUris: uris.redirectUris.join(' '), postLogoutRedirectUris: postLogout });
        }
        return ExitCode.ok;
      }),
    );
}

function rotate(ctx: CliContext): Command {
  const schema = z.object({ name: required('NAME'), json });
  const command = new Command('rotate').description('give the client a new secret and print it once; the old one stops working');
  return recordArgument(ctx.io, command, CLIENT)
    .addOption(jsonOption())
    .action(
      action(async (name: unknown, options: object) => {
        const input = schema.parse({ name, ...options });
        const issued = await ctx.withServices((s) => s.oidc.clients.rotate(input.name));
        printIssued(ctx.io, input.json, issued);
        return ExitCode.ok;
      }),
    );
}

export function oidcClientsCommand(ctx: CliContext): Command {
  return new Command('oidc-clients')
    .description('manage the sites that sign members in with OpenID Connect (docs/oidc.md), and their secrets')
    .addCommand(add(ctx))
    .addCommand(list(ctx))
    .addCommand(show(ctx))
    .addCommand(rotate(ctx))
    .addCommand(
      simpleCommand(ctx, {
        record: CLIENT,
        verb: 'remove',
        description: 'delete the OpenID client: its secret and tokens stop working (the provider is off once no client is left)',
        run: async (s, name) => {
          await s.oidc.clients.remove(name);
          return { message: `OpenID client ${name} removed.`, record: { name, removed: true } };
        },
      }),
    );
}
