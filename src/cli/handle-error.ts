import { CommanderError } from 'commander';
import { z } from 'zod';
import { ConfigError } from '../config/config.js';
import { ServiceError } from '../service/errors.js';
import { StartupError } from '../startup-error.js';
import type { CliIo } from './context.js';

export const ExitCode = { ok: 0, failure: 1, usage: 2, software: 70 } as const;

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
  if (error instanceof ServiceError || error instanceof StartupError) {
    io.err(`error: ${error.message}\n`);
    return ExitCode.failure;
  }
  io.err(`unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
  return ExitCode.software;
}
