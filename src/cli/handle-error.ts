import { CommanderError } from 'commander';
import { z } from 'zod';
import { ConfigError } from '../config/config.js';
import { ServiceError } from '../service/errors.js';
import { StoreUnavailableError } from '../service/index.js';
import { StartupError } from '../startup-error.js';
import { StoreJobRefusal } from '../store/maintenance/index.js';
import { UnfinishedCopyError } from '../store/open.js';
import type { CliIo } from './context.js';
import { CommandError, NotFoundError } from './errors.js';

/** One exit code per kind of outcome; docs/cli.md lists them. */
export const ExitCode = {
  ok: 0,
  /** The service or the command refused: a duplicate, an invalid value, a file it cannot read, a refused row, a store a store command cannot use. */
  failure: 1,
  /** A wrong command line, or settings that are not valid. */
  usage: 2,
  /** The member, caller, session, origin, second factor, provisioning client, OpenID client or SAML service provider the command names is not there. */
  notFound: 3,
  /** A failure nobody planned for, such as the database going away. */
  software: 70,
  /** The database cannot be written or opened: a full disk, a read-only or locked database (EX_IOERR). */
  storageUnavailable: 74,
  /** 128 + SIGINT, as a shell reports a command stopped by Ctrl-C. */
  interrupted: 130,
} as const;

/** The errors of a refusal the operator can act on: their message is printed as it is, exit 1 (or 3, not found). */
const REFUSALS = [ServiceError, StartupError, CommandError, StoreJobRefusal, UnfinishedCopyError];

/** The service's "No member has this id" and the like; every such code ends so. */
function isNotFound(error: unknown): boolean {
  return error instanceof NotFoundError || (error instanceof ServiceError && error.code.endsWith('_NOT_FOUND'));
}

/**
 * The one place an error becomes output and an exit code. Expected errors print their message only (no
 * stack); none of their messages holds a secret, and unknown errors print only their message too.
 */
export function handleError(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    // Commander has already written its help, version or error text through the configured output.
    return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  }
  if (error instanceof z.ZodError) {
    for (const issue of error.issues) io.err(`error: ${issue.message}\n`);
    return ExitCode.usage;
  }
  if (error instanceof ConfigError) {
    io.err(`${error.message}\n`);
    return ExitCode.usage;
  }
  // The service's start stopped by it (`cannot open the store: …`) as well as a command.
  if (error instanceof StoreUnavailableError || (error instanceof StartupError && error.cause instanceof StoreUnavailableError)) {
    io.err(`error: ${error.message}, then run the command again\n`);
    return ExitCode.storageUnavailable;
  }
  if (error instanceof Error && REFUSALS.some((kind) => error instanceof kind)) {
    io.err(`error: ${error.message}\n`);
    return isNotFound(error) ? ExitCode.notFound : ExitCode.failure;
  }
  io.err(`unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
  return ExitCode.software;
}
