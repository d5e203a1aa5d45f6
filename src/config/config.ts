import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { resolve } from 'node:path';
import { z } from 'zod';
import { OPERATION_PARAMETERS, type OperationName } from '../service/wsdl-types.js';
import { parseDurationSeconds } from './duration.js';
import { PROFILE_NAMES, PROFILES, type ProfileName } from './profiles.js';
import {
  DEFAULT_JSON_FIELDS,
  EXTRA_KEY,
  EXTRA_PREFIX,
  IBRIDGE_ATTRIBUTE_NAMES,
  IBRIDGE_CORE_ATTRIBUTES,
  JSON_FIELD_NAMES,
  type ChosenField,
  type IbridgeAttributeName,
  type JsonFieldName,
} from './result-fields.js';
import { describeSettings, type Setting } from './settings.js';
import { encodeXmlName } from './xml-name.js';

export const RESULT_FORMATS = ['ibridge', 'json', 'plain'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

export const MEMBER_ID_FORMATS = ['any', 'guid'] as const;
export const MFA_POLICIES = ['optional', 'required'] as const;
export const SESSION_TOKEN_FORMATS = ['opaque', 'guid'] as const;

export interface Config {
  /** PROFILE: the vendor whose partner clients this deployment serves, or undefined. */
  readonly profile: ProfileName | undefined;
  /** Every setting's effective value (secrets masked) and where it came from, for the start-up log and `config show`. */
  readonly settings: readonly Setting[];
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly soapNamespace: string;
  /** The service's name as people read it (help pages); spaces allowed. */
  readonly serviceName: string;
  /** The names the WSDL gives the service, the bindings and ports, and the portTypes, encoded as ASMX does. */
  readonly wsdlNames: { readonly service: string; readonly binding: string; readonly portType: string };
  /** The operations the endpoint offers (OPERATIONS), in WSDL order. */
  readonly operations: readonly OperationName[];
  /**
   * Each operation's parameters as the endpoint declares them, in WSDL order: the WSDL's, without
   * authenticationToken when AUTHENTICATION_TOKEN_PARAMETER is off (clients generated before it existed, and
   * CRM4M's, send three parameters, and the HTTP bindings refuse a call that lacks a declared one).
   */
  readonly operationParameters: Readonly<Record<OperationName, readonly string[]>>;
  /** wsdl:documentation of the service and of operations, also shown on the help pages. */
  readonly documentation: { readonly service: string | undefined; readonly operations: Readonly<Partial<Record<OperationName, string>>> };
  /** '' or a path such as '/webservices', without a trailing slash. */
  readonly basePath: string;
  /** Public base URL the endpoint is reached at, without a trailing slash; overrides Host and X-Forwarded-*. */
  readonly publicUrl: string | undefined;
  /**
   * The host names requests may name (ALLOWED_HOSTS): exact names, `*.` followed by a domain for its
   * subdomains, or `*` for any; undefined when not set.
   */
  readonly allowedHosts: readonly string[] | undefined;
  /** Whose X-Forwarded-* headers are believed (TRUST_PROXY). */
  readonly trustProxy: ProxyTrust;
  readonly resultFormat: ResultFormat;
  /** The fields of a json result (JSON_FIELDS), in order. */
  readonly jsonFields: readonly ChosenField<JsonFieldName>[];
  /** Member attributes an ibridge User element adds (IBRIDGE_USER_ATTRIBUTES), in order. */
  readonly ibridgeAttributes: readonly ChosenField<IbridgeAttributeName>[];
  /** MEMBER_ID_FORMAT: guid makes new member ids GUIDs (CRM4M's clients type them as UUIDs). */
  readonly memberIdFormat: (typeof MEMBER_ID_FORMATS)[number];
  readonly maxBodyBytes: number;
  readonly logLevel: string;
  readonly bindings: { readonly soap11: boolean; readonly soap12: boolean; readonly httpGet: boolean; readonly httpPost: boolean };
  readonly session: {
    readonly absoluteTimeoutSeconds: number;
    readonly idleTimeoutSeconds: number;
    readonly slidingIdle: boolean;
    /** SESSION_TOKEN_FORMAT: guid issues tokens that are GUIDs. */
    readonly tokenFormat: (typeof SESSION_TOKEN_FORMATS)[number];
  };
  /** 32-byte key that hashes and encrypts session secrets and caller passwords; undefined means the key file in dataDir. */
  readonly secretKey: Buffer | undefined;
  readonly signin: SigninConfig;
  /** Failed security passwords per client address (CALLER_*), counted in the store like the sign-in throttle. */
  readonly callerThrottle: CallerThrottleConfig;
  /**
   * How long callers, sessions and caller throttle states read on the call path may be reused (0 to 1000 ms):
   * a change made elsewhere (another instance, the admin CLI) is seen within this time.
   */
  readonly cacheTtlMs: number;
  /** Deadlines the HTTP server enforces on every connection, so that slow clients cannot hold the process. */
  readonly server: ServerTimeouts;
  /** Prometheus metrics; port undefined serves /metrics on the main port, a number on a listener of its own. */
  readonly metrics: { readonly enabled: boolean; readonly port: number | undefined };
  /** How long a stop waits for requests in flight before cutting their connections. */
  readonly shutdownTimeoutSeconds: number;
  /** The background purge of ended sessions and stale throttle records. */
  readonly purge: {
    readonly intervalSeconds: number;
    /** How long ended sessions stay visible (sessions list --all) before the purge deletes them. */
    readonly sessionRetentionSeconds: number;
  };
}

/** The proxies whose X-Forwarded-* headers are believed: none, any peer (`true`), or these addresses and ranges. */
export interface ProxyTrust {
  /** Any peer at all (TRUST_PROXY=true): the right-most X-Forwarded-For entry is the client. */
  readonly any: boolean;
  /** The setting as given, for the start-up log. */
  readonly setting: string;
  /** Whether a connection from this address (or an X-Forwarded-For entry naming it) is a trusted proxy. */
  trusts(address: string | undefined): boolean;
}

/** An IPv4 address as IPv6 (::ffff:a.b.c.d), as a dual-stack socket reports it, is the IPv4 address. */
const plainAddress = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

function proxyTrust(setting: string, value: boolean | readonly string[]): ProxyTrust {
  if (typeof value === 'boolean') return Object.freeze({ any: value, setting, trusts: () => value });
  const list = new BlockList();
  for (const entry of value) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return Object.freeze({
    any: false,
    setting,
    trusts: (address: string | undefined) => {
      if (address === undefined) return false;
      const plain = plainAddress(address.trim());
      const family = isIP(plain);
      return family !== 0 && list.check(plain, family === 6 ? 'ipv6' : 'ipv4');
    },
  });
}

/** An address or CIDR range, IPv4 or IPv6. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

export interface SigninConfig {
  /** Absolute paths of the sign-in, sign-out and account pages (not under basePath). */
  readonly loginPath: string;
  readonly logoutPath: string;
  readonly accountPath: string;
  /** MFA: members choose whether to have a second factor (optional), or must have one (required). */
  readonly mfa: (typeof MFA_POLICIES)[number];
  /** Where a missing or refused return address leads: a path on this service. */
  readonly defaultReturnPath: string;
  /** Domain attribute of the login cookie, e.g. '.example.org'; undefined gives a host-only cookie. */
  readonly cookieDomain: string | undefined;
  readonly cookieName: string;
  /** TOKEN_COOKIE_NAME: also set the session token in this cookie on sign-in (ISGweb's `Token`), or undefined. */
  readonly tokenCookieName: string | undefined;
  readonly cookieSecure: boolean;
  readonly branding: {
    readonly organizationName: string;
    readonly logoUrl: string | undefined;
    readonly accentColor: string;
    /** Templates here replace the built-in ones of the same name. */
    readonly templateDir: string | undefined;
  };
  readonly throttle: {
    readonly accountFailures: number;
    readonly addressFailures: number;
    readonly windowSeconds: number;
    readonly lockoutSeconds: number;
  };
}

export interface CallerThrottleConfig {
  /** Failed security passwords from one address, within the window, that lock that address. */
  readonly maxFailures: number;
  readonly windowSeconds: number;
  readonly lockoutSeconds: number;
}

export interface ServerTimeouts {
  /** The request line and headers must have arrived this long after the request began (408 otherwise). */
  readonly headersTimeoutSeconds: number;
  /** The whole request, body included, must have arrived this long after it began. */
  readonly requestTimeoutSeconds: number;
  /** An idle keep-alive connection is closed after this long. */
  readonly keepAliveTimeoutSeconds: number;
}

/** HEADERS_TIMEOUT, REQUEST_TIMEOUT and KEEP_ALIVE_TIMEOUT when they are not set. */
export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = Object.freeze({
  headersTimeoutSeconds: 10,
  requestTimeoutSeconds: 30,
  keepAliveTimeoutSeconds: 15,
});

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const FALSE_WORDS = ['false', '0', 'no', 'off'];

const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => TRUE_WORDS.includes(v) || FALSE_WORDS.includes(v), 'must be true or false')
  .transform((v) => TRUE_WORDS.includes(v));

const duration = z
  .string()
  .transform((v, ctx) => {
    const seconds = parseDurationSeconds(v);
    if (seconds === null || seconds <= 0) {
      ctx.addIssue({ code: 'custom', message: 'must be a positive duration such as 900, 30m, 12h or 7d' });
      return z.NEVER;
    }
    return seconds;
  });

/** A duration with an upper bound (timers cannot wait longer than about 24 days, and nobody means to). */
const durationAtMost = (maxSeconds: number, maxText: string) =>
  duration.refine((seconds) => seconds <= maxSeconds, `must be at most ${maxText}`);

const integer = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);

const absoluteHttpUrl = z
  .string()
  .trim()
  .refine((v) => {
    try {
      const url = new URL(v);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
    } catch {
      return false;
    }
  }, 'must be an absolute http:// or https:// URL without query or fragment');

const urlPath = z
  .string()
  .trim()
  .regex(/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/, 'must be a path starting with "/"');

const cookieName = z
  .string()
  .trim()
  // Without "|", which separates the pairs of an iBridge USER_COOKIE.
  .regex(/^[!#$%&'*+.^_`~0-9A-Za-z-]+$/, 'must be a cookie name (letters, digits and !#$%&\'*+.^_`~-)');

/** A WSDL name before encoding: ASMX turns each space into _x0020_. */
const serviceName = z
  .string()
  .trim()
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*( [A-Za-z0-9_.-]+)*$/, 'must be a name such as Authentication or Authentication Web Service (letters, digits, _ . - and single spaces)');

const MAX_DOCUMENTATION = 1000;
const documentation = z.string().trim().min(1).max(MAX_DOCUMENTATION, `must be at most ${MAX_DOCUMENTATION} characters`);

const OPERATION_NAMES = Object.keys(OPERATION_PARAMETERS) as OperationName[];
/** The seed's two operations: the default WSDL is the reference service's. */
const DEFAULT_OPERATIONS = 'AuthenticateCookie,AuthenticateToken';
const isOperationName = (name: string): name is OperationName => Object.hasOwn(OPERATION_PARAMETERS, name);

const commaList = (v: string) => v.split(',').map((entry) => entry.trim()).filter(Boolean);

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A comma-separated choice of a catalogue's fields and the member's free-form attributes (`attr:<key>`). */
function fieldList<Name extends string>(catalogue: readonly Name[], example: string, reserved: readonly string[] = []) {
  return z.string().transform((v, ctx) => {
    const fields: ChosenField<Name>[] = [];
    for (const entry of commaList(v)) {
      const key = entry.startsWith(EXTRA_PREFIX) ? entry.slice(EXTRA_PREFIX.length) : undefined;
      if (key !== undefined && reserved.includes(key)) {
        ctx.addIssue({ code: 'custom', message: `"${entry}" would repeat the ${key} every result has` });
        return z.NEVER;
      }
      if (key !== undefined && EXTRA_KEY.test(key)) fields.push({ kind: 'extra', key });
      else if ((catalogue as readonly string[]).includes(entry)) fields.push({ kind: 'known', name: entry as Name });
      else {
        ctx.addIssue({ code: 'custom', message: `"${entry}" is not one of ${catalogue.join(', ')}, nor ${EXTRA_PREFIX}<key> (e.g. ${example})` });
        return z.NEVER;
      }
    }
    const names = fields.map((field) => (field.kind === 'known' ? field.name : field.key));
    const repeated = names.find((name, i) => names.indexOf(name) !== i);
    if (repeated !== undefined) {
      ctx.addIssue({ code: 'custom', message: `names "${repeated}" twice` });
      return z.NEVER;
    }
    return fields;
  });
}

/** Every setting, with its environment variable, its default and its rule; the README's table lists the same. */
const schema = z.object({
  PORT: integer(0, 65535).default(8080),
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  SOAP_NAMESPACE: absoluteHttpUrl
    .or(z.string().regex(/^urn:/, 'must be a URL or urn'))
    .refine((v) => v.endsWith('/'), 'must end with "/" (ASMX namespaces do, and clients were generated against it)')
    .default('http://tempuri.org/'),
  PROFILE: z.enum(PROFILE_NAMES, { message: `must be one of ${PROFILE_NAMES.join(', ')}` }).optional(),
  SERVICE_NAME: serviceName.default('Authentication'),
  WSDL_BINDING_NAME: serviceName.optional(),
  WSDL_PORT_TYPE_NAME: serviceName.optional(),
  SERVICE_DOCUMENTATION: documentation.optional(),
  OPERATION_DOCUMENTATION: z
    .string()
    .transform((v, ctx) => {
      const parsed = parseJsonObject(v);
      const entries = parsed ? Object.entries(parsed) : [];
      const bad = entries.filter(([name, text]) => !isOperationName(name) || typeof text !== 'string' || !documentation.safeParse(text).success);
      if (!parsed || bad.length > 0) {
        ctx.addIssue({ code: 'custom', message: `must be a JSON object of operation names (${OPERATION_NAMES.join(', ')}) to texts of at most ${MAX_DOCUMENTATION} characters` });
        return z.NEVER;
      }
      return Object.fromEntries(entries) as Partial<Record<OperationName, string>>;
    })
    .optional(),
  OPERATIONS: z
    .string()
    .transform((v, ctx) => {
      const names = commaList(v);
      const unknown = names.filter((name) => !OPERATION_NAMES.some((op) => op.toLowerCase() === name.toLowerCase()));
      if (names.length === 0 || unknown.length > 0) {
        const detail = unknown.length > 0 ? ` (not one: ${unknown.join(', ')})` : '';
        ctx.addIssue({ code: 'custom', message: `must be operations, comma-separated, of ${OPERATION_NAMES.join(', ')}${detail}` });
        return z.NEVER;
      }
      return OPERATION_NAMES.filter((op) => names.some((name) => name.toLowerCase() === op.toLowerCase()));
    })
    .prefault(DEFAULT_OPERATIONS),
  AUTHENTICATION_TOKEN_PARAMETER: bool.default(true),
  BASE_PATH: z
    .string()
    .trim()
    .regex(/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*\/?$/, 'must be a URL path such as /webservices')
    .transform((v) => v.replace(/\/+$/, ''))
    .default(''),
  PUBLIC_URL: absoluteHttpUrl.transform((v) => v.replace(/\/+$/, '')).optional(),
  ALLOWED_HOSTS: z
    .string()
    .transform((v) => v.split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean))
    .refine(
      (entries) => entries.length > 0 && entries.every((entry) => /^(\*|(\*\.)?(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*))$/.test(entry)),
      'must be host names, comma-separated, each exact (members.example.org), a domain\'s subdomains (*.example.org) or * for any',
    )
    .optional(),
  TRUST_PROXY: z
    .string()
    .trim()
    .transform((v, ctx) => {
      const word = v.toLowerCase();
      if (TRUE_WORDS.includes(word) || FALSE_WORDS.includes(word)) return TRUE_WORDS.includes(word);
      const entries = v.split(',').map((entry) => entry.trim()).filter(Boolean);
      if (entries.length > 0 && entries.every(isAddressOrRange)) return entries;
      ctx.addIssue({ code: 'custom', message: "must be true, false, or the proxies' addresses and CIDR ranges, comma-separated (10.0.0.5, 10.1.0.0/16, ::1)" });
      return z.NEVER;
    })
    .default(false),
  RESULT_FORMAT: z.enum(RESULT_FORMATS, { message: `must be one of ${RESULT_FORMATS.join(', ')}` }).default('ibridge'),
  JSON_FIELDS: fieldList(JSON_FIELD_NAMES, 'status,contactid,pa_token,attr:account')
    .refine((fields) => fields.some((field) => field.kind === 'known' && field.name === 'status'), 'must include status (every result has one)')
    .prefault(DEFAULT_JSON_FIELDS),
  IBRIDGE_USER_ATTRIBUTES: fieldList(IBRIDGE_ATTRIBUTE_NAMES, 'CONTACT_NUMBER,ROLES,attr:MEMBER_TYPE', IBRIDGE_CORE_ATTRIBUTES).optional(),
  MEMBER_ID_FORMAT: z.enum(MEMBER_ID_FORMATS, { message: `must be one of ${MEMBER_ID_FORMATS.join(', ')}` }).default('any'),
  SESSION_TOKEN_FORMAT: z.enum(SESSION_TOKEN_FORMATS, { message: `must be one of ${SESSION_TOKEN_FORMATS.join(', ')}` }).default('opaque'),
  MAX_BODY_BYTES: integer(1024, 16 * 1024 * 1024).default(64 * 1024),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'debug', 'silent']).default('info'),
  SOAP11_ENABLED: bool.default(true),
  SOAP12_ENABLED: bool.default(true),
  HTTP_GET_ENABLED: bool.default(true),
  HTTP_POST_ENABLED: bool.default(true),
  SESSION_ABSOLUTE_TIMEOUT: duration.default(12 * 3600),
  SESSION_IDLE_TIMEOUT: duration.default(30 * 60),
  SESSION_SLIDING: bool.default(true),
  LOGIN_PATH: urlPath.default('/Login'),
  LOGOUT_PATH: urlPath.default('/Logout'),
  ACCOUNT_PATH: urlPath.default('/Account'),
  MFA: z.enum(MFA_POLICIES, { message: `must be one of ${MFA_POLICIES.join(', ')}` }).default('optional'),
  DEFAULT_RETURN_PATH: urlPath.optional(),
  COOKIE_DOMAIN: z
    .string()
    .trim()
    .regex(/^\.?([A-Za-z0-9-]{1,63}\.)*[A-Za-z0-9-]{1,63}$/, 'must be a domain such as .example.org')
    .optional(),
  LOGIN_COOKIE_NAME: cookieName.default('.ASPXAUTH'),
  TOKEN_COOKIE_NAME: cookieName.optional(),
  COOKIE_SECURE: bool.default(true),
  ORGANIZATION_NAME: z.string().trim().min(1).max(120).default('Member sign-in'),
  LOGO_URL: absoluteHttpUrl.or(urlPath).optional(),
  ACCENT_COLOR: z
    .string()
    .trim()
    .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour such as #0b5cad')
    .default('#0b5cad'),
  TEMPLATE_DIR: z.string().trim().min(1).optional(),
  SIGNIN_MAX_FAILURES_PER_ACCOUNT: integer(1, 1000).default(5),
  SIGNIN_MAX_FAILURES_PER_ADDRESS: integer(1, 100000).default(20),
  SIGNIN_FAILURE_WINDOW: duration.default(15 * 60),
  SIGNIN_LOCKOUT: duration.default(15 * 60),
  CALLER_MAX_FAILURES_PER_ADDRESS: integer(1, 100000).default(20),
  CALLER_FAILURE_WINDOW: duration.default(15 * 60),
  CALLER_LOCKOUT: duration.default(15 * 60),
  // At most one second, so that a revocation anywhere reaches every instance within one second.
  CACHE_TTL_MS: integer(0, 1000).default(1000),
  SECRET_KEY: z
    .string()
    .trim()
    .transform((v, ctx) => {
      // Strict forms only: Buffer.from(…, 'base64') skips stray characters and would take a sentence as a key.
      const key = /^[0-9a-f]{64}$/i.test(v) ? Buffer.from(v, 'hex') : /^[A-Za-z0-9+/]{43}=$/.test(v) ? Buffer.from(v, 'base64') : null;
      if (key?.length !== 32) {
        ctx.addIssue({ code: 'custom', message: 'must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)' });
        return z.NEVER;
      }
      return key;
    })
    .optional(),
  METRICS_ENABLED: bool.default(true),
  METRICS_PORT: integer(0, 65535).optional(),
  SHUTDOWN_TIMEOUT: durationAtMost(3600, '1h').default(10),
  PURGE_INTERVAL: durationAtMost(86400, '1d').default(5 * 60),
  SESSION_RETENTION: duration.default(7 * 86400),
  HEADERS_TIMEOUT: durationAtMost(3600, '1h').default(DEFAULT_SERVER_TIMEOUTS.headersTimeoutSeconds),
  REQUEST_TIMEOUT: durationAtMost(3600, '1h').default(DEFAULT_SERVER_TIMEOUTS.requestTimeoutSeconds),
  KEEP_ALIVE_TIMEOUT: durationAtMost(3600, '1h').default(DEFAULT_SERVER_TIMEOUTS.keepAliveTimeoutSeconds),
});

export type Environment = Record<string, string | undefined>;

/** Rules between settings, checked on whichever of them parsed, so that every problem is listed at once. */
function crossFieldProblems(env: Environment): string[] {
  const field = <K extends keyof typeof schema.shape>(key: K) => {
    const parsed = schema.shape[key].safeParse(env[key]);
    return parsed.success ? (parsed.data as z.output<(typeof schema.shape)[K]>) : undefined;
  };
  const problems: string[] = [];
  const idle = field('SESSION_IDLE_TIMEOUT');
  const absolute = field('SESSION_ABSOLUTE_TIMEOUT');
  if (idle !== undefined && absolute !== undefined && idle > absolute) {
    problems.push('SESSION_IDLE_TIMEOUT: must not be longer than SESSION_ABSOLUTE_TIMEOUT');
  }
  const bindings = (['SOAP11_ENABLED', 'SOAP12_ENABLED', 'HTTP_GET_ENABLED', 'HTTP_POST_ENABLED'] as const).map(field);
  if (bindings.every((on) => on === false)) {
    problems.push('SOAP11_ENABLED, SOAP12_ENABLED, HTTP_GET_ENABLED, HTTP_POST_ENABLED: at least one binding must stay on');
  }
  const port = field('PORT');
  const metricsPort = field('METRICS_PORT');
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    problems.push('METRICS_PORT: must differ from PORT (leave METRICS_PORT unset to serve /metrics on the main port)');
  }
  // Node refuses to create a server whose headers may take longer than the whole request.
  const headersTimeout = field('HEADERS_TIMEOUT');
  const requestTimeout = field('REQUEST_TIMEOUT');
  if (headersTimeout !== undefined && requestTimeout !== undefined && headersTimeout > requestTimeout) {
    problems.push('HEADERS_TIMEOUT: must not be longer than REQUEST_TIMEOUT');
  }
  return problems;
}

/** Reads an optional JSON file of settings (CONFIG_FILE); the environment wins over it. */
function readConfigFile(path: string): Environment {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError([`CONFIG_FILE ${path}: ${(error as Error).message}`]);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError([`CONFIG_FILE ${path}: must hold a JSON object of settings`]);
  }
  // A setting that is itself JSON (OPERATION_DOCUMENTATION) may be written as an object.
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, v === null ? undefined : typeof v === 'object' ? JSON.stringify(v) : String(v)]));
}

/** Validates the settings once; throws ConfigError listing every problem, one per line. */
export function loadConfig(env: Environment = process.env): Config {
  const fromFile = env.CONFIG_FILE ? readConfigFile(env.CONFIG_FILE) : {};
  const given: Environment = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key] !== undefined && env[key] !== '' ? env[key] : fromFile[key];
    if (value !== undefined && value !== '') given[key] = value;
  }
  const profile = schema.shape.PROFILE.safeParse(given.PROFILE);
  const implied: Environment = profile.success && profile.data ? PROFILES[profile.data] : {};
  const merged: Environment = { ...implied, ...given };
  const result = schema.safeParse(merged);
  const problems = [
    ...(result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)),
    ...crossFieldProblems(merged),
  ];
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  const s = result.data;
  const settings = describeSettings(Object.keys(schema.shape), {
    source: (key) => {
      if (given[key] !== undefined) return env[key] === given[key] ? 'environment' : 'file';
      return key in implied ? 'profile' : 'default';
    },
    given: merged,
    parsed: s,
    // Defaults that are parsed like given values are shown as written.
    defaults: { OPERATIONS: DEFAULT_OPERATIONS, JSON_FIELDS: DEFAULT_JSON_FIELDS },
  });
  const wsdlBinding = s.WSDL_BINDING_NAME ?? s.SERVICE_NAME;
  return Object.freeze({
    profile: s.PROFILE,
    settings,
    port: s.PORT,
    host: s.HOST,
    dataDir: resolve(s.DATA_DIR),
    databaseUrl: s.DATABASE_URL,
    soapNamespace: s.SOAP_NAMESPACE,
    serviceName: s.SERVICE_NAME,
    wsdlNames: Object.freeze({
      service: encodeXmlName(s.SERVICE_NAME),
      binding: encodeXmlName(wsdlBinding),
      portType: encodeXmlName(s.WSDL_PORT_TYPE_NAME ?? wsdlBinding),
    }),
    operations: Object.freeze(s.OPERATIONS),
    operationParameters: Object.freeze(
      Object.fromEntries(
        OPERATION_NAMES.map((op) => [op, Object.freeze(OPERATION_PARAMETERS[op].filter((name) => s.AUTHENTICATION_TOKEN_PARAMETER || name !== 'authenticationToken'))]),
      ) as Record<OperationName, readonly string[]>,
    ),
    documentation: Object.freeze({ service: s.SERVICE_DOCUMENTATION, operations: Object.freeze(s.OPERATION_DOCUMENTATION ?? {}) }),
    basePath: s.BASE_PATH,
    publicUrl: s.PUBLIC_URL,
    allowedHosts: s.ALLOWED_HOSTS,
    trustProxy: proxyTrust(merged.TRUST_PROXY ?? 'false', s.TRUST_PROXY),
    resultFormat: s.RESULT_FORMAT,
    jsonFields: Object.freeze(s.JSON_FIELDS),
    ibridgeAttributes: Object.freeze(s.IBRIDGE_USER_ATTRIBUTES ?? []),
    memberIdFormat: s.MEMBER_ID_FORMAT,
    maxBodyBytes: s.MAX_BODY_BYTES,
    logLevel: s.LOG_LEVEL,
    bindings: Object.freeze({ soap11: s.SOAP11_ENABLED, soap12: s.SOAP12_ENABLED, httpGet: s.HTTP_GET_ENABLED, httpPost: s.HTTP_POST_ENABLED }),
    session: Object.freeze({
      absoluteTimeoutSeconds: s.SESSION_ABSOLUTE_TIMEOUT,
      idleTimeoutSeconds: s.SESSION_IDLE_TIMEOUT,
      slidingIdle: s.SESSION_SLIDING,
      tokenFormat: s.SESSION_TOKEN_FORMAT,
    }),
    secretKey: s.SECRET_KEY,
    signin: Object.freeze({
      loginPath: s.LOGIN_PATH,
      logoutPath: s.LOGOUT_PATH,
      accountPath: s.ACCOUNT_PATH,
      mfa: s.MFA,
      defaultReturnPath: s.DEFAULT_RETURN_PATH ?? s.LOGIN_PATH,
      cookieDomain: s.COOKIE_DOMAIN?.toLowerCase(),
      cookieName: s.LOGIN_COOKIE_NAME,
      tokenCookieName: s.TOKEN_COOKIE_NAME,
      cookieSecure: s.COOKIE_SECURE,
      branding: Object.freeze({
        organizationName: s.ORGANIZATION_NAME,
        logoUrl: s.LOGO_URL,
        accentColor: s.ACCENT_COLOR,
        templateDir: s.TEMPLATE_DIR === undefined ? undefined : resolve(s.TEMPLATE_DIR),
      }),
      throttle: Object.freeze({
        accountFailures: s.SIGNIN_MAX_FAILURES_PER_ACCOUNT,
        addressFailures: s.SIGNIN_MAX_FAILURES_PER_ADDRESS,
        windowSeconds: s.SIGNIN_FAILURE_WINDOW,
        lockoutSeconds: s.SIGNIN_LOCKOUT,
      }),
    }),
    callerThrottle: Object.freeze({
      maxFailures: s.CALLER_MAX_FAILURES_PER_ADDRESS,
      windowSeconds: s.CALLER_FAILURE_WINDOW,
      lockoutSeconds: s.CALLER_LOCKOUT,
    }),
    cacheTtlMs: s.CACHE_TTL_MS,
    server: Object.freeze({
      headersTimeoutSeconds: s.HEADERS_TIMEOUT,
      requestTimeoutSeconds: s.REQUEST_TIMEOUT,
      keepAliveTimeoutSeconds: s.KEEP_ALIVE_TIMEOUT,
    }),
    metrics: Object.freeze({ enabled: s.METRICS_ENABLED, port: s.METRICS_PORT }),
    shutdownTimeoutSeconds: s.SHUTDOWN_TIMEOUT,
    purge: Object.freeze({ intervalSeconds: s.PURGE_INTERVAL, sessionRetentionSeconds: s.SESSION_RETENTION }),
  });
}
