import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { z } from 'zod';
import { fetchSpMetadata, readSpMetadata, spRegistration } from '../../saml/sp-metadata.js';
import { SAML_MEMBER_FIELDS, SAML_NAME_ID_FORMATS, SAML_SIGNED, samlAttribute, type SamlAttribute, type SamlSp, type SamlSpSettings } from '../../service/saml/index.js';
import { ServiceError } from '../../service/errors.js';
import { action } from '../action.js';
import type { CliContext } from '../context.js';
import { CommandError } from '../errors.js';
import { ExitCode } from '../handle-error.js';
import { json, jsonOption, repeatable, required } from '../options.js';
import { isoTime, printJson, printList, printRecord, warn } from '../output.js';
import { recordArgument, type RecordArgument } from '../record-argument.js';
import { simpleCommand } from '../simple-command.js';

/** The SP a command acts on, by name: `saml-sps show events`. */
const SP: RecordArgument = { name: 'name', description: 'SAML service provider name' };

/** Why an SP just added cannot be used yet (docs/saml.md: the identity provider's entity ID is made of PUBLIC_URL). */
const NO_PUBLIC_URL = 'PUBLIC_URL is not set: the SAML identity provider is off until it is (its entity ID is PUBLIC_URL/saml/metadata)';

/** NAME=FIELD: an attribute named as the SP wants it, carrying a member field; a URN or URL name is a URI name. */
const attribute = required('--attribute').transform((value, ctx): SamlAttribute => {
  const read = samlAttribute(value);
  if (read !== null) return read;
  ctx.addIssue({ code: 'custom', message: `--attribute ${value} must be NAME=FIELD, FIELD one of ${SAML_MEMBER_FIELDS.join(', ')}` });
  return z.NEVER;
});

/** The metadata document of a file, or of an https URL (http only on a loopback host). */
async function metadataText(source: string): Promise<string> {
  if (/^https?:\/\//i.test(source)) {
    try {
      return await fetchSpMetadata(source);
    } catch (error) {
      throw new CommandError(`--metadata ${source}: ${(error as Error).message}`);
    }
  }
  try {
    return await readFile(source, 'utf8');
  } catch (error) {
    throw new CommandError(`--metadata ${source}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

function signedText(settings: SamlSpSettings): (typeof SAML_SIGNED)[number] {
  if (settings.signResponse && settings.signAssertion) return 'both';
  return settings.signResponse ? 'response' : 'assertion';
}

function spFields(sp: SamlSp) {
  return {
    name: sp.name,
    entityId: sp.entityId,
    nameIdFormat: sp.settings.nameIdFormat,
    signed: signedText(sp.settings),
    encryptAssertion: sp.settings.encryptAssertion,
    requireSignedRequests: sp.settings.requireSignedRequests,
    created: isoTime(sp.createdAt),
  };
}

const attributeText = (attributes: readonly SamlAttribute[]) => attributes.map((a) => `${a.name}=${a.field}`).join(' ');

function add(ctx: CliContext): Command {
  const schema = z.object({
    name: required('NAME'),
    metadata: required('--metadata'),
    nameIdFormat: z.enum(SAML_NAME_ID_FORMATS).optional(),
    attribute: z.array(attribute).optional(),
    requireSignedRequests: z.boolean().default(false),
    encrypt: z.boolean().default(true),
    sign: z.enum(SAML_SIGNED).default('both'),
    json,
  });
  const command = new Command('add').description("register a site that signs members in with SAML 2.0, from its metadata (docs/saml.md)");
  return recordArgument(ctx.io, command, SP)
    .requiredOption('--metadata <file|url>', "the site's SP metadata: a file, or an https URL (fetched once, now)")
    .addOption(new Option('--name-id-format <format>', 'how the member is named to the site (default persistent: the member id)').choices(SAML_NAME_ID_FORMATS))
    .option('--attribute <name=field>', `an attribute the site wants, instead of the default set (repeat for more); FIELD: ${SAML_MEMBER_FIELDS.join(', ')}`, repeatable)
    .option('--require-signed-requests', "refuse the site's unsigned requests even if its metadata does not say it signs them")
    .option('--no-encrypt', "do not encrypt assertions, although the site's metadata has an encryption certificate")
    .addOption(new Option('--sign <what>', 'what is signed (default both)').choices(SAML_SIGNED))
    .addOption(jsonOption())
    .action(
      action(async (name: unknown, options: object) => {
        const input = schema.parse({ name, ...options });
        const xml = await metadataText(input.metadata);
        const { nameIdFormat, attribute: attributes, requireSignedRequests, encrypt, sign } = input;
        const registration = spRegistration(xml, { nameIdFormat, attributes, requireSignedRequests, encrypt, sign });
        if (!registration.ok) throw new CommandError(`--metadata ${input.metadata}: ${registration.reason}`);
        const { entityId, settings } = registration;
        const sp = await ctx.withServices((s) => s.saml.sps.add({ name: input.name, entityId, metadataXml: xml, settings }));
        const warnings = [...registration.warnings, ...(ctx.config().publicUrl === undefined ? [NO_PUBLIC_URL] : [])];
        const fields = { name: sp.name, entityId: sp.entityId };
        if (input.json && warnings.length > 0) printJson(ctx.io, { ...fields, warnings });
        else printRecord(ctx.io, input.json, fields);
        for (const warning of warnings) warn(ctx.io, warning);
        return ExitCode.ok;
      }),
    );
}

function list(ctx: CliContext): Command {
  return new Command('list')
    .description('list the SAML service providers')
    .addOption(jsonOption())
    .action(
      action(async (options: object) => {
        const input = z.object({ json }).parse(options);
        const sps = await ctx.withServices((s) => s.saml.sps.list());
        printList(ctx.io, input.json, sps.map(spFields), 'No SAML service providers.');
        return ExitCode.ok;
      }),
    );
}

/** The SP with this name; SAML_SP_NOT_FOUND when there is none. */
function found(sp: SamlSp | null, name: string): SamlSp {
  if (sp === null) throw new ServiceError('SAML_SP_NOT_FOUND', name);
  return sp;
}

function show(ctx: CliContext): Command {
  const schema = z.object({ name: required('NAME'), json });
  return recordArgument(ctx.io, new Command('show').description('show a SAML service provider: its settings, attributes and the endpoints of its metadata'), SP)
    .addOption(jsonOption())
    .action(
      action(async (name: unknown, options: object) => {
        const input = schema.parse({ name, ...options });
        const sp = found(await ctx.withServices((s) => s.saml.sps.find(input.name)), input.name);
        const read = readSpMetadata(sp.metadataXml);
        const endpoints = read.ok
          ? {
              assertionConsumerServices: read.metadata.assertionConsumerServices.map((acs) => acs.location),
              singleLogoutServices: read.metadata.singleLogoutServices.map((slo) => slo.location),
            }
          : { assertionConsumerServices: [], singleLogoutServices: [] };
        if (input.json) printJson(ctx.io, { ...spFields(sp), attributes: sp.settings.attributes, ...endpoints });
        else {
          const joined = (values: string[]) => values.join(' ') || null;
          printRecord(ctx.io, false, {
            ...spFields(sp),
            attributes: attributeText(sp.settings.attributes),
            assertionConsumerServices: joined(endpoints.assertionConsumerServices),
            singleLogoutServices: joined(endpoints.singleLogoutServices),
          });
        }
        return ExitCode.ok;
      }),
    );
}

export function samlSpsCommand(ctx: CliContext): Command {
  return new Command('saml-sps')
    .description('manage the sites that sign members in with SAML 2.0 (docs/saml.md)')
    .addCommand(add(ctx))
    .addCommand(list(ctx))
    .addCommand(show(ctx))
    .addCommand(
      simpleCommand(ctx, {
        record: SP,
        verb: 'remove',
        description: 'delete the SAML service provider (the identity provider is off once none is left)',
        run: async (s, name) => {
          if (!(await s.saml.sps.remove(name))) throw new ServiceError('SAML_SP_NOT_FOUND', name);
          return { message: `SAML service provider ${name} removed.`, record: { name, removed: true } };
        },
      }),
    );
}
