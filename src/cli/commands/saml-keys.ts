import { Command } from 'commander';
import { z } from 'zod';
import type { SamlKeyInfo } from '../../service/saml/index.js';
import type { Services } from '../../service/index.js';
import { action } from '../action.js';
import type { CliContext } from '../context.js';
import { ExitCode } from '../handle-error.js';
import { json, jsonOption } from '../options.js';
import { isoTime, isoTimeOrNull, printDone, printList } from '../output.js';

function keyFields(key: SamlKeyInfo) {
  return {
    kid: key.kid,
    state: key.state,
    created: isoTime(key.createdAt),
    activated: isoTimeOrNull(key.activatedAt),
    retired: isoTimeOrNull(key.retiredAt),
    notAfter: isoTime(key.notAfter),
    sha256Fingerprint: key.sha256Fingerprint,
  };
}

function list(ctx: CliContext): Command {
  return new Command('list')
    .description('list the signing keys of the SAML identity provider: current, next, retired (never their private part)')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = z.object({ json }).parse(options);
        const keys = await ctx.withServices((s) => s.saml.keys.list());
        printList(ctx.io, input.json, keys.map(keyFields), 'No signing keys yet: the first is made when the identity provider first signs or publishes its metadata.');
        return ExitCode.ok;
      }),
    );
}

/** A command that changes the keys once and says which key it made or moved. */
function keyChange(ctx: CliContext, verb: string, description: string, change: (s: Services) => Promise<SamlKeyInfo>, message: (key: SamlKeyInfo) => string): Command {
  return new Command(verb)
    .description(description)
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = z.object({ json }).parse(options);
        const key = await ctx.withServices(change);
        printDone(ctx.io, input.json, message(key), keyFields(key));
        return ExitCode.ok;
      }),
    );
}

export function samlKeysCommand(ctx: CliContext): Command {
  return new Command('saml-keys')
    .description("manage the SAML identity provider's signing keys (docs/saml.md)")
    .addCommand(list(ctx))
    .addCommand(
      keyChange(
        ctx,
        'rotate',
        'publish a next signing key in the metadata beside the current one, which still signs; activate it once the sites have its certificate',
        (s) => s.saml.keys.rotate(),
        (key) => `Next signing key ${key.kid} published (SHA-256 ${key.sha256Fingerprint}); run saml-keys activate once every site has its certificate.`,
      ),
    )
    .addCommand(
      keyChange(
        ctx,
        'activate',
        'sign with the next key from now on and retire the current one',
        (s) => s.saml.keys.activate(),
        (key) => `Signing key ${key.kid} signs now; instances use it within a second.`,
      ),
    );
}
