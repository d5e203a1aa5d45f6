import type { CliContext, CliIo } from '../../src/cli/context.js';
import { loadConfig, type Environment } from '../../src/config/config.js';
import { runCli } from '../../src/cli/program.js';
import type { Services } from '../../src/service/index.js';
import { tempServices } from './test-services.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function capturingIo(): CliIo & { stdout: string; stderr: string } {
  return {
    stdout: '',
    stderr: '',
    out(text) {
      this.stdout += text;
    },
    err(text) {
      this.stderr += text;
    },
  };
}

export async function runWith(ctx: Omit<CliContext, 'io'>, ...args: string[]): Promise<CliResult> {
  const io = capturingIo();
  const code = await runCli(args, { ...ctx, io }, '9.9.9-test');
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/**
 * The CLI over services on a fresh SQLite store, as the admin would run it, with captured output; `env` is the
 * configuration, for the commands that read it.
 */
export async function cliHarness(env?: Environment): Promise<{
  services: Services;
  run: (...args: string[]) => Promise<CliResult>;
  cleanup: () => Promise<void>;
}> {
  const { services, cleanup } = await tempServices({ session: { absoluteTimeoutSeconds: 3600, idleTimeoutSeconds: 600, slidingIdle: true } });
  const ctx: Omit<CliContext, 'io'> = {
    config: () => {
      if (env === undefined) throw new Error('the admin commands under test do not read the configuration');
      return loadConfig(env);
    },
    withServices: (fn) => fn(services),
  };
  return { services, run: (...args) => runWith(ctx, ...args), cleanup };
}
