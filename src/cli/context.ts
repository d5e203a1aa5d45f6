import { composeCommandMailer } from '../compose/mailer.js';
import { serviceSettings } from '../compose/service-settings.js';
import { loadConfig, type Config, type Environment } from '../config/config.js';
import { loadOrCreateSecretKey } from '../config/secret-key.js';
import { checkDeploymentKey } from '../service/deployment-key.js';
import { createServices, type Services } from '../service/index.js';
import { openStore } from '../store/open.js';

/** Where commands write; tests capture it. Texts carry their own line endings. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** stderr is a terminal: progress may redraw one line there. Unset (tests, pipes) means plain lines. */
  readonly errIsTerminal?: boolean;
}

/** What a command needs from outside the program; tests pass their own services and io. */
export interface CliContext {
  readonly io: CliIo;
  /** The validated settings; throws ConfigError. */
  config(): Config;
  /**
   * Runs fn over services on an open store, and closes the store when fn settles; the mail fn queued (SMTP_URL)
   * is delivered first, for up to SHUTDOWN_TIMEOUT.
   */
  withServices<T>(fn: (services: Services) => Promise<T>): Promise<T>;
}

const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  errIsTerminal: process.stderr.isTTY === true,
};

export function createCliContext(env: Environment, io: CliIo = processIo): CliContext {
  let config: Config | undefined;
  const configOnce = (): Config => (config ??= loadConfig(env));
  return {
    io,
    config: configOnce,
    async withServices(fn) {
      const config = configOnce();
      const { dataDir, databaseUrl, secretKey } = config;
      const key = loadOrCreateSecretKey(secretKey, dataDir, { shared: databaseUrl !== undefined });
      // Before the store opens: a broken mail template stops the command with nothing to close.
      const mailer = composeCommandMailer(config, (text) => io.err(text), io.errIsTerminal === true);
      const store = await openStore({ dataDir, databaseUrl });
      try {
        await checkDeploymentKey(store, key);
        const services = createServices({ store, secretKey: key, settings: serviceSettings(config), mailer });
        try {
          return await fn(services);
        } finally {
          // The events the command recorded (a member created, sessions ended…) are written before the store closes.
          await services.events.flush();
        }
      } finally {
        await mailer?.stop(config.shutdownTimeoutSeconds * 1000);
        await store.close();
      }
    },
  };
}
