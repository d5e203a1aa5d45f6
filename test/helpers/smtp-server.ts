import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** A message the server took: its envelope, the user it authenticated as, and the message parsed. */
export interface Delivered {
  envelope: { from: string; to: string[] };
  user: string | undefined;
  mail: ParsedMail;
}

export interface TestSmtpServerOptions {
  /** AUTH is required, with these credentials. */
  credentials?: { user: string; pass: string };
  /** TLS from the connection's start (smtps://), with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
}

/** A real SMTP server on 127.0.0.1, for what the mail code sends. */
export interface TestSmtpServer {
  readonly port: number;
  /** The messages taken, in order. */
  readonly delivered: readonly Delivered[];
  /** MAIL FROM commands seen, refused or not: the delivery attempts that reached the server. */
  readonly attempts: number;
  /** Refuses the next `times` attempts at MAIL FROM with this reply code: 4xx (try later) or 5xx (never). */
  refuse(code: number, times?: number): void;
  /** Holds every new connection before the greeting (a server that hangs) until the function returned is called. */
  hold(): () => void;
  /** Closes the listener and cuts the connections, as a server that goes down. */
  stop(): Promise<void>;
  /** Listens again, on the same port. */
  start(): Promise<void>;
}

/** Starts a server on an ephemeral port of 127.0.0.1. STARTTLS is off: plain SMTP, or TLS from the start. */
export async function startSmtpServer(options: TestSmtpServerOptions = {}): Promise<TestSmtpServer> {
  const delivered: Delivered[] = [];
  const refusals: number[] = [];
  let held: Array<() => void> | undefined;
  let attempts = 0;
  let port = 0;
  let server: SMTPServer | undefined;

  const serverOptions: SMTPServerOptions = {
    logger: false,
    // Its reverse lookup of 127.0.0.1 would delay each greeting for as long as DNS takes to answer.
    disableReverseLookup: true,
    disabledCommands: ['STARTTLS', ...(options.credentials ? [] : ['AUTH'])],
    ...(options.tls ? { secure: true, key: options.tls.key, cert: options.tls.cert } : {}),
    authOptional: options.credentials === undefined,
    // Credentials over plain SMTP are fine on the loopback; smtp-server refuses them without TLS otherwise.
    allowInsecureAuth: true,
    onConnect(_session, callback) {
      if (held) held.push(() => callback());
      else callback();
    },
    onAuth(auth, _session, callback) {
      const { credentials } = options;
      if (credentials && auth.username === credentials.user && auth.password === credentials.pass) callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onMailFrom(_address, _session, callback) {
      attempts += 1;
      const code = refusals.shift();
      if (code === undefined) callback();
      else callback(Object.assign(new Error(code < 500 ? 'Try again later' : 'Refused'), { responseCode: code }));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
          const user = typeof session.user === 'string' ? session.user : undefined;
          delivered.push({ envelope: { from, to: session.envelope.rcptTo.map((rcpt) => rcpt.address) }, user, mail });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  };

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const instance = new SMTPServer(serverOptions);
      instance.on('error', reject);
      const listener = instance.listen(port, '127.0.0.1', () => {
        const address = listener.address();
        if (typeof address === 'object' && address !== null) port = address.port;
        server = instance;
        resolve();
      });
    });

  const stop = () =>
    new Promise<void>((resolve) => {
      const instance = server;
      server = undefined;
      if (instance === undefined) return resolve();
      instance.close(() => resolve());
      for (const connection of instance.connections) connection.close();
    });

  await start();
  return {
    get port() {
      return port;
    },
    delivered,
    get attempts() {
      return attempts;
    },
    refuse(code, times = 1) {
      refusals.push(...Array.from({ length: times }, () => code));
    },
    hold() {
      const waiting: Array<() => void> = [];
      held = waiting;
      return () => {
        held = undefined;
        for (const release of waiting) release();
      };
    },
    stop,
    start,
  };
}


/** A data directory and an SMTP server, fresh for each test: user `mailer` with the given password sends through SMTP_URL. */
export interface MailGround {
  dataDir: string;
  smtp: TestSmtpServer;
  smtpUrl: string;
}

/** Starts a MailGround before each test of the file and removes it after. */
export function mailGroundForEachTest(prefix: string, password: string): MailGround {
  const ground = {} as MailGround;
  beforeEach(async () => {
    ground.dataDir = await mkdtemp(join(tmpdir(), prefix));
    ground.smtp = await startSmtpServer({ credentials: { user: 'mailer', pass: password } });
    ground.smtpUrl = `smtp://mailer:${password}@127.0.0.1:${ground.smtp.port}`;
  });
  afterEach(async () => {
    await ground.smtp.stop();
    await rm(ground.dataDir, { recursive: true, force: true });
  });
  return ground;
}
