import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig, type Environment } from '../../src/config/config.js';
import { parseDurationSeconds } from '../../src/config/duration.js';
import { OPERATION_PARAMETERS } from '../../src/service/wsdl-types.js';
import { problemsOf } from './problems.js';

describe('defaults', () => {
  it('an empty environment gives the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toEqual({
      profile: undefined,
      settings: expect.any(Array),
      port: 8080,
      host: '127.0.0.1',
      dataDir: resolve('./data'),
      databaseUrl: undefined,
      soapNamespace: 'http://tempuri.org/',
      serviceName: 'Authentication',
      wsdlNames: { service: 'Authentication', binding: 'Authentication', portType: 'Authentication' },
      operations: ['AuthenticateCookie', 'AuthenticateToken'],
      operationParameters: OPERATION_PARAMETERS,
      documentation: { service: undefined, operations: {} },
      basePath: '',
      publicUrl: undefined,
      trustProxy: expect.objectContaining({ any: false, setting: 'false' }),
      hstsMaxAgeSeconds: 31536000,
      resultFormat: 'ibridge',
      jsonFields: ['status', 'message', 'contactid', 'pa_token', 'emailaddress1', 'firstname', 'lastname', 'fullname'].map((name) => ({ kind: 'known', name })),
      ibridgeAttributes: [],
      memberIdFormat: 'any',
      maxBodyBytes: 65536,
      logLevel: 'info',
      logFormat: 'auto',
      noColor: false,
      bindings: { soap11: true, soap12: true, httpGet: true, httpPost: true },
      session: { absoluteTimeoutSeconds: 12 * 3600, idleTimeoutSeconds: 30 * 60, slidingIdle: true, tokenFormat: 'opaque' },
      signin: {
        loginPath: '/Login',
        logoutPath: '/Logout',
        accountPath: '/Account',
        recoveryPaths: { request: '/Login/forgot', reset: '/Login/reset' },
        mfa: 'optional',
        defaultReturnPath: '/Login',
        cookieDomain: undefined,
        cookieName: '.ASPXAUTH',
        tokenCookieName: undefined,
        cookieSecure: true,
        branding: { organizationName: undefined, logoUrl: undefined, accentColor: '#0b5cad', templateDir: undefined },
        throttle: { accountFailures: 5, addressFailures: 20, windowSeconds: 15 * 60, lockoutSeconds: 15 * 60 },
        recoveryTokenTtlSeconds: 30 * 60,
        support: { url: undefined, email: undefined },
      },
      formsCookie: undefined,
      callerThrottle: { maxFailures: 20, windowSeconds: 15 * 60, lockoutSeconds: 15 * 60 },
      cacheTtlMs: 1000,
      server: { headersTimeoutSeconds: 10, requestTimeoutSeconds: 30, keepAliveTimeoutSeconds: 15 },
      secretKey: undefined,
      mailLog: false,
      metrics: { enabled: true, port: undefined },
      shutdownTimeoutSeconds: 10,
      purge: { intervalSeconds: 5 * 60, sessionRetentionSeconds: 7 * 86400, eventRetentionDays: 90 },
      oidc: { tokenLifetimeSeconds: 600 },
    });
  });

  it('treats empty values as unset', () => {
    const config = loadConfig({ PORT: '', HOST: '', RESULT_FORMAT: '', SECRET_KEY: '', SOAP11_ENABLED: '' });
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', resultFormat: 'ibridge', secretKey: undefined, bindings: { soap11: true } });
  });

  it('ignores variables it does not know', () => {
    expect(loadConfig({ HOME: '/root', SOMETHING_ELSE: 'x' }).port).toBe(8080);
  });

  it('freezes the result', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.bindings)).toBe(true);
    expect(Object.isFrozen(config.session)).toBe(true);
    expect(Object.isFrozen(config.metrics)).toBe(true);
    expect(Object.isFrozen(config.purge)).toBe(true);
    expect(Object.isFrozen(config.callerThrottle)).toBe(true);
    expect(Object.isFrozen(config.server)).toBe(true);
  });
});

describe('each variable', () => {
  it('parses PORT, HOST, DATA_DIR, SERVICE_NAME, LOG_LEVEL, MAX_BODY_BYTES and RESULT_FORMAT', () => {
    const config = loadConfig({
      PORT: '9090',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/auth',
      SERVICE_NAME: 'Auth_Service.v2',
      LOG_LEVEL: 'debug',
      MAX_BODY_BYTES: '1024',
      RESULT_FORMAT: 'json',
    });
    expect(config).toMatchObject({
      port: 9090,
      host: '0.0.0.0',
      dataDir: '/var/lib/auth',
      serviceName: 'Auth_Service.v2',
      logLevel: 'debug',
      maxBodyBytes: 1024,
      resultFormat: 'json',
    });
  });

  it.each(['ibridge', 'json', 'plain'])('accepts RESULT_FORMAT %s', (format) => {
    expect(loadConfig({ RESULT_FORMAT: format }).resultFormat).toBe(format);
  });

  it('accepts a postgres DATABASE_URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db/auth' }).databaseUrl).toBe('postgres://u:p@db/auth');
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/auth' }).databaseUrl).toBe('postgresql://db/auth');
  });

  it.each<[string, boolean]>([
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
    ['TRUE', true],
    [' False ', false],
  ])('reads the boolean %j as %s', (text, value) => {
    const config = loadConfig({
      TRUST_PROXY: text,
      SESSION_SLIDING: text,
      SOAP11_ENABLED: text,
      SOAP12_ENABLED: text,
      HTTP_GET_ENABLED: text,
      HTTP_POST_ENABLED: value ? text : 'true', // at least one binding must stay on
    });
    expect(config.trustProxy.any).toBe(value);
    expect(config.trustProxy.trusts('203.0.113.9')).toBe(value);
    expect(config.session.slidingIdle).toBe(value);
    expect(config.bindings).toEqual({ soap11: value, soap12: value, httpGet: value, httpPost: true });
  });

  it.each(['maybe', '2', 'enabled'])('refuses the boolean %j naming the variable', (text) => {
    expect(problemsOf({ SESSION_SLIDING: text })).toEqual(['SESSION_SLIDING: must be true or false']);
  });

  it('reads TRUST_PROXY as the proxies\' addresses and CIDR ranges, IPv4 and IPv6', () => {
    const trust = loadConfig({ TRUST_PROXY: ' 10.0.0.5, 192.168.0.0/16,::1 , fd00::/8' }).trustProxy;
    expect([trust.any, trust.setting]).toEqual([false, ' 10.0.0.5, 192.168.0.0/16,::1 , fd00::/8']);
    expect(['10.0.0.5', '192.168.200.1', '::1', 'fd12::1', '::ffff:10.0.0.5'].map((a) => trust.trusts(a))).toEqual([true, true, true, true, true]);
    expect(['10.0.0.6', '172.16.0.1', '::2', 'fe80::1', 'not-an-address', undefined].map((a) => trust.trusts(a))).toEqual([false, false, false, false, false, false]);
  });

  it.each(['maybe', '2', '10.0.0.256', '10.0.0.0/33', '::1/129', '10.0.0.1/8/8', ',', 'example.org'])('refuses the TRUST_PROXY %j, saying what it takes', (text) => {
    expect(problemsOf({ TRUST_PROXY: text })).toEqual([
      "TRUST_PROXY: must be true, false, or the proxies' addresses and CIDR ranges, comma-separated (10.0.0.5, 10.1.0.0/16, ::1)",
    ]);
  });

  it('turns each binding off on its own', () => {
    expect(loadConfig({ SOAP11_ENABLED: 'false' }).bindings).toEqual({ soap11: false, soap12: true, httpGet: true, httpPost: true });
    expect(loadConfig({ SOAP12_ENABLED: '0' }).bindings).toEqual({ soap11: true, soap12: false, httpGet: true, httpPost: true });
    expect(loadConfig({ HTTP_GET_ENABLED: 'false' }).bindings).toEqual({ soap11: true, soap12: true, httpGet: false, httpPost: true });
    expect(loadConfig({ HTTP_POST_ENABLED: 'false' }).bindings).toEqual({ soap11: true, soap12: true, httpGet: true, httpPost: false });
  });

  it.each<[string, number]>([
    ['90', 90],
    ['90s', 90],
    ['30m', 1800],
    ['12h', 43200],
    ['7d', 604800],
  ])('reads the duration %j as %d seconds', (text, seconds) => {
    expect(parseDurationSeconds(text)).toBe(seconds);
    const config = loadConfig({ SESSION_ABSOLUTE_TIMEOUT: '30d', SESSION_IDLE_TIMEOUT: text });
    expect(config.session).toMatchObject({ absoluteTimeoutSeconds: 30 * 86400, idleTimeoutSeconds: seconds });
    expect(loadConfig({ SESSION_ABSOLUTE_TIMEOUT: text, SESSION_IDLE_TIMEOUT: '1' }).session.absoluteTimeoutSeconds).toBe(seconds);
  });

  it.each(['0', '-5', '5w', '1.5h', 'soon'])('refuses the duration %j naming the variable', (text) => {
    const problems = problemsOf({ SESSION_IDLE_TIMEOUT: text });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SESSION_IDLE_TIMEOUT: /);
  });

  it.each(['-1', '65536', '80a', 'http'])('refuses PORT %j', (text) => {
    const problems = problemsOf({ PORT: text });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^PORT: /);
  });

  it('refuses MAX_BODY_BYTES below 1024 or above 16 MiB', () => {
    expect(problemsOf({ MAX_BODY_BYTES: '1023' })).toEqual(['MAX_BODY_BYTES: must be between 1024 and 16777216']);
    expect(problemsOf({ MAX_BODY_BYTES: String(16 * 1024 * 1024 + 1) })).toEqual(['MAX_BODY_BYTES: must be between 1024 and 16777216']);
    expect(loadConfig({ MAX_BODY_BYTES: String(16 * 1024 * 1024) }).maxBodyBytes).toBe(16 * 1024 * 1024);
  });

  it('keeps CACHE_TTL_MS between 0 (no cache) and one second', () => {
    expect(loadConfig({ CACHE_TTL_MS: '0' }).cacheTtlMs).toBe(0);
    expect(loadConfig({ CACHE_TTL_MS: '250' }).cacheTtlMs).toBe(250);
    expect(problemsOf({ CACHE_TTL_MS: '1001' })).toEqual(['CACHE_TTL_MS: must be between 0 and 1000']);
    expect(problemsOf({ CACHE_TTL_MS: '-1' })).toEqual(['CACHE_TTL_MS: must be a whole number']);
  });

  it.each(['auto', 'json', 'pretty'])('accepts LOG_FORMAT %s, and lists it with the settings', (format) => {
    const config = loadConfig({ LOG_FORMAT: format });
    expect(config.logFormat).toBe(format);
    expect(config.settings).toContainEqual({ name: 'LOG_FORMAT', value: format, source: 'environment' });
    expect(loadConfig({}).settings).toContainEqual({ name: 'LOG_FORMAT', value: 'auto', source: 'default' });
  });

  it('refuses an unknown LOG_FORMAT, listing the formats', () => {
    expect(problemsOf({ LOG_FORMAT: 'text' })).toEqual(['LOG_FORMAT: must be one of auto, json, pretty']);
  });

  it.each(['1', 'true', '0', 'false', 'no'])('reads any NO_COLOR value, %j too, as no colour (no-color.org); empty is unset', (value) => {
    expect(loadConfig({ NO_COLOR: value }).noColor).toBe(true);
    expect(loadConfig({ NO_COLOR: '' }).noColor).toBe(false);
  });

  it('refuses an unknown RESULT_FORMAT, listing the formats', () => {
    expect(problemsOf({ RESULT_FORMAT: 'xml' })).toEqual(['RESULT_FORMAT: must be one of ibridge, json, plain']);
  });

  it('refuses a SERVICE_NAME that is not a name and a DATABASE_URL that is not postgres', () => {
    for (const name of ['1Auth', 'Auth  Service', 'Auth<x>', 'A'.repeat(101)]) expect(problemsOf({ SERVICE_NAME: name })[0]).toMatch(/^SERVICE_NAME: /);
    expect(problemsOf({ DATABASE_URL: 'mysql://db/auth' })).toEqual(['DATABASE_URL: must be a postgres:// URL']);
  });
});

describe('SUPPORT_URL and SUPPORT_EMAIL', () => {
  it('reads a web page and a bare address', () => {
    const config = loadConfig({ SUPPORT_URL: ' https://help.example.org/members?topic=password ', SUPPORT_EMAIL: 'help@example.org' });
    expect(config.signin.support).toEqual({ url: 'https://help.example.org/members?topic=password', email: 'help@example.org' });
  });

  it('refuses a URL that is not http or https, and an email that is not one bare address', () => {
    for (const url of ['javascript:alert(1)', 'ftp://help.example.org', 'help.example.org', '/help']) {
      expect(problemsOf({ SUPPORT_URL: url })).toEqual(['SUPPORT_URL: must be an absolute http:// or https:// URL']);
    }
    for (const email of ['help', 'Help <help@example.org>', 'a@example.org, b@example.org', 'help@example.org\nBcc: x@example.org']) {
      expect(problemsOf({ SUPPORT_EMAIL: email })).toEqual(['SUPPORT_EMAIL: must be one email address, such as help@example.org']);
    }
  });
});

describe('SOAP_NAMESPACE', () => {
  it('accepts a URL or urn ending with "/"', () => {
    expect(loadConfig({ SOAP_NAMESPACE: 'https://auth.example.org/ws/' }).soapNamespace).toBe('https://auth.example.org/ws/');
    expect(loadConfig({ SOAP_NAMESPACE: 'urn:example:auth/' }).soapNamespace).toBe('urn:example:auth/');
  });

  it('refuses a namespace without the trailing "/" with a message naming SOAP_NAMESPACE', () => {
    const problems = problemsOf({ SOAP_NAMESPACE: 'http://tempuri.org' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SOAP_NAMESPACE: .*"\/"/);
    expect(problems[0]).toContain('SOAP_NAMESPACE');
  });

  it('refuses a namespace that is neither a URL nor a urn, naming SOAP_NAMESPACE', () => {
    const problems = problemsOf({ SOAP_NAMESPACE: 'tempuri/' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SOAP_NAMESPACE: /);
  });
});

describe('several problems', () => {
  it('several bad values at once give one ConfigError with one line per variable', () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: 'eighty', RESULT_FORMAT: 'xml', TRUST_PROXY: 'maybe', SOAP_NAMESPACE: 'http://tempuri.org', SESSION_IDLE_TIMEOUT: 'soon' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const { problems, message } = caught as ConfigError;
    expect(problems).toHaveLength(5);
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['PORT', 'RESULT_FORMAT', 'SESSION_IDLE_TIMEOUT', 'SOAP_NAMESPACE', 'TRUST_PROXY']);
    for (const problem of problems) {
      expect(problem).not.toContain('\n');
      expect(message).toContain(`  - ${problem}`);
    }
    expect(message.split('\n')).toHaveLength(1 + problems.length);
    expect(message.startsWith('Invalid configuration:\n')).toBe(true);
  });

  it('a bad value together with an idle timeout longer than the absolute one lists both problems', () => {
    const problems = problemsOf({ PORT: 'eighty', SESSION_ABSOLUTE_TIMEOUT: '1h', SESSION_IDLE_TIMEOUT: '2h' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['PORT', 'SESSION_IDLE_TIMEOUT']);
  });
});

describe('cross-checks', () => {
  it('refuses all four bindings off', () => {
    const problems = problemsOf({ SOAP11_ENABLED: 'false', SOAP12_ENABLED: 'false', HTTP_GET_ENABLED: '0', HTTP_POST_ENABLED: 'false' });
    expect(problems).toEqual(['SOAP11_ENABLED, SOAP12_ENABLED, HTTP_GET_ENABLED, HTTP_POST_ENABLED: at least one binding must stay on']);
  });

  it('accepts three bindings off', () => {
    expect(loadConfig({ SOAP11_ENABLED: 'false', SOAP12_ENABLED: 'false', HTTP_GET_ENABLED: 'false' }).bindings).toEqual({
      soap11: false,
      soap12: false,
      httpGet: false,
      httpPost: true,
    });
  });

  it('refuses an idle timeout longer than the absolute timeout', () => {
    expect(problemsOf({ SESSION_ABSOLUTE_TIMEOUT: '1h', SESSION_IDLE_TIMEOUT: '61m' })).toEqual([
      'SESSION_IDLE_TIMEOUT: must not be longer than SESSION_ABSOLUTE_TIMEOUT',
    ]);
    // Against the default absolute timeout of 12 h, too.
    expect(problemsOf({ SESSION_IDLE_TIMEOUT: '13h' })).toEqual(['SESSION_IDLE_TIMEOUT: must not be longer than SESSION_ABSOLUTE_TIMEOUT']);
  });

  it('accepts an idle timeout equal to the absolute timeout', () => {
    expect(loadConfig({ SESSION_ABSOLUTE_TIMEOUT: '1h', SESSION_IDLE_TIMEOUT: '60m' }).session).toEqual({
      absoluteTimeoutSeconds: 3600,
      idleTimeoutSeconds: 3600,
      slidingIdle: true,
      tokenFormat: 'opaque',
    });
  });
});

describe('operations settings', () => {
  it('reads METRICS_ENABLED and METRICS_PORT', () => {
    expect(loadConfig({ METRICS_ENABLED: 'false' }).metrics).toEqual({ enabled: false, port: undefined });
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ enabled: true, port: 9464 });
    expect(loadConfig({ METRICS_PORT: '0' }).metrics.port).toBe(0);
    expect(loadConfig({ METRICS_PORT: '' }).metrics.port).toBeUndefined();
  });

  it.each(['yes please', '2'])('refuses METRICS_ENABLED %j naming it', (text) => {
    expect(problemsOf({ METRICS_ENABLED: text })).toEqual(['METRICS_ENABLED: must be true or false']);
  });

  it.each<[string, string]>([
    ['65536', 'METRICS_PORT: must be between 0 and 65535'],
    ['-1', 'METRICS_PORT: must be a whole number'],
    ['http', 'METRICS_PORT: must be a whole number'],
  ])('refuses METRICS_PORT %j', (text, problem) => {
    expect(problemsOf({ METRICS_PORT: text })).toEqual([problem]);
  });

  it('refuses a METRICS_PORT equal to PORT, also against the default PORT', () => {
    const problem = 'METRICS_PORT: must differ from PORT (leave METRICS_PORT unset to serve /metrics on the main port)';
    expect(problemsOf({ PORT: '9000', METRICS_PORT: '9000' })).toEqual([problem]);
    expect(problemsOf({ METRICS_PORT: '8080' })).toEqual([problem]);
    // Two ephemeral ports are two different ports.
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' }).metrics.port).toBe(0);
  });

  it('reads SHUTDOWN_TIMEOUT, PURGE_INTERVAL and SESSION_RETENTION as durations', () => {
    const config = loadConfig({ SHUTDOWN_TIMEOUT: '30', PURGE_INTERVAL: '1h', SESSION_RETENTION: '30d' });
    expect(config.shutdownTimeoutSeconds).toBe(30);
    expect(config.purge).toEqual({ intervalSeconds: 3600, sessionRetentionSeconds: 30 * 86400, eventRetentionDays: 90 });
    expect(loadConfig({ SHUTDOWN_TIMEOUT: '2m', PURGE_INTERVAL: '90s', SESSION_RETENTION: '12h' })).toMatchObject({
      shutdownTimeoutSeconds: 120,
      purge: { intervalSeconds: 90, sessionRetentionSeconds: 12 * 3600 },
    });
  });

  it.each(['SHUTDOWN_TIMEOUT', 'PURGE_INTERVAL', 'SESSION_RETENTION'])('refuses a %s that is not a positive duration, naming it', (name) => {
    for (const text of ['0', 'soon', '-5', '1.5h']) {
      expect(problemsOf({ [name]: text })).toEqual([`${name}: must be a positive duration such as 900, 30m, 12h or 7d`]);
    }
  });

  it('reads EVENTS_RETENTION_DAYS as whole days from 1 to 3650, 90 unless set', () => {
    expect(loadConfig({ EVENTS_RETENTION_DAYS: '400' }).purge.eventRetentionDays).toBe(400);
    for (const text of ['0', '3651', '30d', '1.5']) expect(problemsOf({ EVENTS_RETENTION_DAYS: text })).toEqual([expect.stringMatching(/^EVENTS_RETENTION_DAYS: /)]);
  });

  it('reads OIDC_TOKEN_LIFETIME as a duration of at most a day', () => {
    expect(loadConfig({ OIDC_TOKEN_LIFETIME: '5m' }).oidc).toEqual({ tokenLifetimeSeconds: 300 });
    expect(problemsOf({ OIDC_TOKEN_LIFETIME: '25h' })).toEqual(['OIDC_TOKEN_LIFETIME: must be at most 1d']);
  });

  it('reads RECOVERY_TOKEN_TTL as a duration from a minute to a day, 30 minutes unless set', () => {
    expect(loadConfig({}).signin.recoveryTokenTtlSeconds).toBe(1800);
    expect(loadConfig({ RECOVERY_TOKEN_TTL: '2h' }).signin.recoveryTokenTtlSeconds).toBe(7200);
    expect(problemsOf({ RECOVERY_TOKEN_TTL: '25h' })).toEqual(['RECOVERY_TOKEN_TTL: must be at most 1d']);
    expect(problemsOf({ RECOVERY_TOKEN_TTL: '30' })).toEqual(['RECOVERY_TOKEN_TTL: must be at least 1m']);
    expect(problemsOf({ RECOVERY_TOKEN_TTL: 'soon' })).toEqual(['RECOVERY_TOKEN_TTL: must be a positive duration such as 900, 30m, 12h or 7d']);
  });

  it('refuses a SHUTDOWN_TIMEOUT over 1 h and a PURGE_INTERVAL over 1 day (timers cannot wait for ever)', () => {
    expect(problemsOf({ SHUTDOWN_TIMEOUT: '61m' })).toEqual(['SHUTDOWN_TIMEOUT: must be at most 1h']);
    expect(problemsOf({ PURGE_INTERVAL: '25h' })).toEqual(['PURGE_INTERVAL: must be at most 1d']);
    expect(loadConfig({ SHUTDOWN_TIMEOUT: '1h', PURGE_INTERVAL: '1d' })).toMatchObject({ shutdownTimeoutSeconds: 3600, purge: { intervalSeconds: 86400 } });
  });

  it('takes the operations settings from CONFIG_FILE too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authentication-asmx-config-'));
    try {
      const path = join(dir, 'config.json');
      await writeFile(path, JSON.stringify({ METRICS_ENABLED: false, METRICS_PORT: 9464, SHUTDOWN_TIMEOUT: '20s', SESSION_RETENTION: '1d' }));
      expect(loadConfig({ CONFIG_FILE: path })).toMatchObject({
        metrics: { enabled: false, port: 9464 },
        shutdownTimeoutSeconds: 20,
        purge: { sessionRetentionSeconds: 86400 },
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('caller throttle settings', () => {
  it('reads CALLER_MAX_FAILURES_PER_ADDRESS, CALLER_FAILURE_WINDOW and CALLER_LOCKOUT', () => {
    expect(loadConfig({ CALLER_MAX_FAILURES_PER_ADDRESS: '50', CALLER_FAILURE_WINDOW: '1h', CALLER_LOCKOUT: '90s' }).callerThrottle).toEqual({
      maxFailures: 50,
      windowSeconds: 3600,
      lockoutSeconds: 90,
    });
  });

  it.each<[string, string]>([
    ['0', 'CALLER_MAX_FAILURES_PER_ADDRESS: must be between 1 and 100000'],
    ['100001', 'CALLER_MAX_FAILURES_PER_ADDRESS: must be between 1 and 100000'],
    ['many', 'CALLER_MAX_FAILURES_PER_ADDRESS: must be a whole number'],
  ])('refuses CALLER_MAX_FAILURES_PER_ADDRESS %j', (text, problem) => {
    expect(problemsOf({ CALLER_MAX_FAILURES_PER_ADDRESS: text })).toEqual([problem]);
  });

  it.each(['CALLER_FAILURE_WINDOW', 'CALLER_LOCKOUT'])('refuses a %s that is not a positive duration, naming it', (name) => {
    for (const text of ['0', 'soon', '-5']) {
      expect(problemsOf({ [name]: text })).toEqual([`${name}: must be a positive duration such as 900, 30m, 12h or 7d`]);
    }
  });
});

describe('server time-outs', () => {
  it('reads HEADERS_TIMEOUT, REQUEST_TIMEOUT and KEEP_ALIVE_TIMEOUT as durations', () => {
    expect(loadConfig({ HEADERS_TIMEOUT: '5', REQUEST_TIMEOUT: '1m', KEEP_ALIVE_TIMEOUT: '75s' }).server).toEqual({
      headersTimeoutSeconds: 5,
      requestTimeoutSeconds: 60,
      keepAliveTimeoutSeconds: 75,
    });
  });

  it.each(['HEADERS_TIMEOUT', 'REQUEST_TIMEOUT', 'KEEP_ALIVE_TIMEOUT'])('refuses a %s that is not a positive duration, or over 1 h', (name) => {
    for (const text of ['0', 'slow', '-1']) {
      expect(problemsOf({ [name]: text })).toEqual([`${name}: must be a positive duration such as 900, 30m, 12h or 7d`]);
    }
    // Over an hour: each alone, and HEADERS_TIMEOUT with a REQUEST_TIMEOUT that still contains it.
    const env = name === 'HEADERS_TIMEOUT' ? { HEADERS_TIMEOUT: '61m', REQUEST_TIMEOUT: '1h' } : { [name]: '61m' };
    expect(problemsOf(env)).toEqual([`${name}: must be at most 1h`]);
  });

  it('refuses a HEADERS_TIMEOUT longer than REQUEST_TIMEOUT, also against the default REQUEST_TIMEOUT', () => {
    const problem = 'HEADERS_TIMEOUT: must not be longer than REQUEST_TIMEOUT';
    expect(problemsOf({ HEADERS_TIMEOUT: '20', REQUEST_TIMEOUT: '10' })).toEqual([problem]);
    expect(problemsOf({ HEADERS_TIMEOUT: '31s' })).toEqual([problem]);
    expect(problemsOf({ REQUEST_TIMEOUT: '5s' })).toEqual([problem]);
    expect(loadConfig({ HEADERS_TIMEOUT: '5s', REQUEST_TIMEOUT: '5s' }).server).toMatchObject({ headersTimeoutSeconds: 5, requestTimeoutSeconds: 5 });
  });
});

describe('SECRET_KEY', () => {
  const key = randomBytes(32);

  it('accepts 64 hex digits, in either case', () => {
    expect(loadConfig({ SECRET_KEY: key.toString('hex') }).secretKey).toEqual(key);
    expect(loadConfig({ SECRET_KEY: key.toString('hex').toUpperCase() }).secretKey).toEqual(key);
  });

  it('accepts base64 of 32 bytes, with surrounding white space', () => {
    expect(loadConfig({ SECRET_KEY: key.toString('base64') }).secretKey).toEqual(key);
    expect(loadConfig({ SECRET_KEY: ` ${key.toString('base64')}\n` }).secretKey).toEqual(key);
  });

  it.each<[string, string]>([
    ['62 hex digits', randomBytes(31).toString('hex')],
    ['66 hex digits', randomBytes(33).toString('hex')],
    ['base64 of 16 bytes', randomBytes(16).toString('base64')],
    ['base64 of 33 bytes', randomBytes(33).toString('base64')],
    ['a short word', 'secret'],
    ['64 characters that are not hex', 'g'.repeat(64)],
  ])('refuses %s, naming SECRET_KEY', (_label, value) => {
    const problems = problemsOf({ SECRET_KEY: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SECRET_KEY: must be 32 bytes/);
  });

  it('refuses a passphrase that is not base64, even when its letters happen to decode to 32 bytes', () => {
    const passphrase = 'change me: this is not a real secret key in production';
    const problems = problemsOf({ SECRET_KEY: passphrase });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^SECRET_KEY: /);
  });

  it('never echoes the key in a problem', () => {
    const bad = randomBytes(20).toString('hex');
    const problems = problemsOf({ SECRET_KEY: bad });
    expect(problems.join('\n')).not.toContain(bad);
  });
});

describe('BASE_PATH', () => {
  it.each<[string, string]>([
    ['/webservices/', '/webservices'],
    ['/webservices', '/webservices'],
    ['/a/b/', '/a/b'],
    ['/', ''],
  ])('normalises %j to %j', (text, basePath) => {
    expect(loadConfig({ BASE_PATH: text }).basePath).toBe(basePath);
  });

  it.each(['webservices', '/web services', '/a?b'])('refuses %j', (text) => {
    const problems = problemsOf({ BASE_PATH: text });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^BASE_PATH: /);
  });
});

describe('PUBLIC_URL', () => {
  it.each<[string, string]>([
    ['https://auth.example.org/', 'https://auth.example.org'],
    ['https://auth.example.org', 'https://auth.example.org'],
    ['http://example.org:8443/webservices/', 'http://example.org:8443/webservices'],
  ])('accepts %j as %j (no trailing slash)', (text, publicUrl) => {
    expect(loadConfig({ PUBLIC_URL: text }).publicUrl).toBe(publicUrl);
  });

  it.each(['auth.example.org', '/webservices', 'ftp://example.org/', 'https://example.org/?a=1', 'https://example.org/#top'])(
    'refuses %j (must be absolute http(s))',
    (text) => {
      const problems = problemsOf({ PUBLIC_URL: text });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^PUBLIC_URL: must be an absolute http/);
    },
  );
});

describe('CONFIG_FILE', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authentication-asmx-config-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function file(content: string): Promise<string> {
    const path = join(dir, 'config.json');
    await writeFile(path, content);
    return path;
  }

  it("applies a JSON file's settings, numbers and booleans included", async () => {
    const path = await file(
      JSON.stringify({ PORT: 9191, RESULT_FORMAT: 'plain', TRUST_PROXY: true, SESSION_IDLE_TIMEOUT: '15m', BASE_PATH: '/ws/' }),
    );
    expect(loadConfig({ CONFIG_FILE: path })).toMatchObject({
      port: 9191,
      resultFormat: 'plain',
      trustProxy: expect.objectContaining({ any: true }),
      basePath: '/ws',
      session: { idleTimeoutSeconds: 900 },
    });
  });

  it('the environment wins over the file, and an empty environment value does not', async () => {
    const path = await file(JSON.stringify({ PORT: '9191', RESULT_FORMAT: 'plain', HOST: '0.0.0.0' }));
    const config = loadConfig({ CONFIG_FILE: path, PORT: '7070', RESULT_FORMAT: '' });
    expect(config).toMatchObject({ port: 7070, resultFormat: 'plain', host: '0.0.0.0' });
  });

  it('validates the values from the file like the environment', async () => {
    const path = await file(JSON.stringify({ RESULT_FORMAT: 'xml' }));
    expect(problemsOf({ CONFIG_FILE: path })).toEqual(['RESULT_FORMAT: must be one of ibridge, json, plain']);
  });

  it('a file that is not JSON is a ConfigError naming CONFIG_FILE', async () => {
    const path = await file('{ "PORT": 9191,');
    const problems = problemsOf({ CONFIG_FILE: path });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^CONFIG_FILE ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
  });

  it('a JSON file that is not an object is a ConfigError', async () => {
    const path = await file('["PORT", 9191]');
    expect(problemsOf({ CONFIG_FILE: path })).toEqual([`CONFIG_FILE ${path}: must hold a JSON object of settings`]);
  });

  it('a missing file is a ConfigError', () => {
    const problems = problemsOf({ CONFIG_FILE: join(dir, 'nope.json') });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^CONFIG_FILE .*nope\.json: .*ENOENT/);
  });
});

describe('PROFILE', () => {
  it('isgweb sets what ISGweb partner plugins need', () => {
    const config = loadConfig({ PROFILE: 'isgweb' });
    expect(config).toMatchObject({
      profile: 'isgweb',
      soapNamespace: 'http://ibridge.isgsolutions.com/Authentication/',
      wsdlNames: { service: 'Authentication', binding: 'Authentication', portType: 'Authentication_x0020_Web_x0020_Service' },
      operations: ['AuthenticateCookie', 'AuthenticateToken', 'AuthenticateUser', 'DeleteUserSession', 'Login'],
      resultFormat: 'ibridge',
      basePath: '/iservices',
      memberIdFormat: 'any',
      session: { tokenFormat: 'opaque' },
      signin: { tokenCookieName: 'Token' },
    });
    expect(config.documentation.service).toMatch(/iMIS database/);
  });

  it('crm4m sets what CRM4M clients need', () => {
    const config = loadConfig({ PROFILE: 'crm4m' });
    expect(config).toMatchObject({
      profile: 'crm4m',
      soapNamespace: 'http://webportalbridge.ptassoc.com/Authentication/',
      serviceName: 'Authentication Web Service',
      wsdlNames: { service: 'Authentication_x0020_Web_x0020_Service', binding: 'Authentication_x0020_Web_x0020_Service', portType: 'Authentication_x0020_Web_x0020_Service' },
      operations: ['AuthenticateToken', 'AuthenticateUser', 'DeleteUserSession', 'ValidateUser'],
      resultFormat: 'json',
      basePath: '/DesktopModules/MX',
      memberIdFormat: 'guid',
      session: { tokenFormat: 'guid' },
    });
    expect(config.jsonFields.map((field) => (field.kind === 'known' ? field.name : field.key))).toContain('pa_webroles');
    expect(config.operationParameters.AuthenticateUser).toEqual(['securityPassword', 'username', 'password']);
  });

  it('a setting given on its own wins over the profile, from the environment or CONFIG_FILE', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'config-'));
    try {
      const file = join(dir, 'settings.json');
      await writeFile(file, JSON.stringify({ BASE_PATH: '/ibridge' }));
      const config = loadConfig({ PROFILE: 'isgweb', CONFIG_FILE: file, RESULT_FORMAT: 'plain' });
      expect(config.basePath).toBe('/ibridge');
      expect(config.resultFormat).toBe('plain');
      const sources = Object.fromEntries(config.settings.map((setting) => [setting.name, setting.source]));
      expect(sources).toMatchObject({ PROFILE: 'environment', BASE_PATH: 'file', RESULT_FORMAT: 'environment', SOAP_NAMESPACE: 'profile', PORT: 'default' });
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  it('refuses an unknown profile, listing the profiles', () => {
    expect(problemsOf({ PROFILE: 'imis' })).toEqual(['PROFILE: must be one of isgweb, crm4m']);
  });

  it('lists the effective settings with secrets masked', () => {
    const key = randomBytes(32).toString('hex');
    const config = loadConfig({ SECRET_KEY: key, DATABASE_URL: 'postgres://auth:hunter2@db.internal/auth' });
    const shown = Object.fromEntries(config.settings.map((setting) => [setting.name, setting.value]));
    expect(shown).toMatchObject({ SECRET_KEY: '(hidden)', DATABASE_URL: 'postgres://auth:***@db.internal/auth', PORT: '8080', OPERATIONS: 'AuthenticateCookie,AuthenticateToken' });
    expect(JSON.stringify(config.settings)).not.toContain(key);
    expect(JSON.stringify(config.settings)).not.toContain('hunter2');
    const inQuery = loadConfig({ DATABASE_URL: 'postgres://auth@db.internal/auth?password=hunter2' }).settings.find((setting) => setting.name === 'DATABASE_URL');
    expect(inQuery?.value).toBe('postgres://auth@db.internal/auth?***');
  });

  it('shows defaults as they would be written', () => {
    const shown = Object.fromEntries(loadConfig({}).settings.map((setting) => [setting.name, setting.value]));
    expect(shown).toMatchObject({ JSON_FIELDS: 'status,message,contactid,pa_token,emailaddress1,firstname,lastname,fullname', OPERATIONS: 'AuthenticateCookie,AuthenticateToken', COOKIE_SECURE: 'true' });
  });

  it('takes OPERATION_DOCUMENTATION from CONFIG_FILE as an object too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'config-'));
    try {
      const file = join(dir, 'settings.json');
      await writeFile(file, JSON.stringify({ OPERATION_DOCUMENTATION: { AuthenticateToken: 'Who holds this token?' } }));
      expect(loadConfig({ CONFIG_FILE: file }).documentation.operations).toEqual({ AuthenticateToken: 'Who holds this token?' });
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});

describe('the contract settings', () => {
  it('OPERATIONS takes names in any case and keeps WSDL order', () => {
    expect(loadConfig({ OPERATIONS: 'login, authenticatetoken' }).operations).toEqual(['AuthenticateToken', 'Login']);
  });

  it.each(['', ' , ', 'AuthenticateToken,GetContactByFilter'])('refuses OPERATIONS %j, listing the operations', (text) => {
    const problems = text === '' ? problemsOf({ OPERATIONS: ',' }) : problemsOf({ OPERATIONS: text });
    expect(problems[0]).toMatch(/^OPERATIONS: must be operations, comma-separated, of AuthenticateCookie, AuthenticateToken, AuthenticateUser/);
  });

  it('encodes WSDL names as ASMX does', () => {
    expect(loadConfig({ SERVICE_NAME: 'Member Auth', WSDL_PORT_TYPE_NAME: 'Auth_x0041_' }).wsdlNames).toEqual({
      service: 'Member_x0020_Auth',
      binding: 'Member_x0020_Auth',
      portType: 'Auth_x005F_x0041_',
    });
  });

  it('reads JSON_FIELDS and IBRIDGE_USER_ATTRIBUTES with attr: extras', () => {
    const config = loadConfig({ JSON_FIELDS: 'status,pa_member,attr:account', IBRIDGE_USER_ATTRIBUTES: 'ROLES,attr:MEMBER_TYPE' });
    expect(config.jsonFields).toEqual([
      { kind: 'known', name: 'status' },
      { kind: 'known', name: 'pa_member' },
      { kind: 'extra', key: 'account' },
    ]);
    expect(config.ibridgeAttributes).toEqual([
      { kind: 'known', name: 'ROLES' },
      { kind: 'extra', key: 'MEMBER_TYPE' },
    ]);
  });

  it.each<[string, Environment, RegExp]>([
    ['an unknown field', { JSON_FIELDS: 'status,pa_tokn' }, /^JSON_FIELDS: "pa_tokn" is not one of status, message/],
    ['no status', { JSON_FIELDS: 'contactid' }, /^JSON_FIELDS: must include status/],
    ['a repeated field', { JSON_FIELDS: 'status,attr:status' }, /^JSON_FIELDS: names "status" twice/],
    ['a bad extra key', { IBRIDGE_USER_ATTRIBUTES: 'attr:1x' }, /^IBRIDGE_USER_ATTRIBUTES: "attr:1x" is not one of IS_MEMBER/],
    ['unknown documentation', { OPERATION_DOCUMENTATION: '{"Nope":"x"}' }, /^OPERATION_DOCUMENTATION: must be a JSON object of operation names/],
    ['documentation that is not JSON', { OPERATION_DOCUMENTATION: 'Verifies' }, /^OPERATION_DOCUMENTATION: must be a JSON object/],
    ['a bad member id format', { MEMBER_ID_FORMAT: 'uuid' }, /^MEMBER_ID_FORMAT: must be one of any, guid/],
    ['a bad MFA policy', { MFA: 'always' }, /^MFA: must be one of optional, required/],
    ['a bad token cookie name', { TOKEN_COOKIE_NAME: 'To ken' }, /^TOKEN_COOKIE_NAME: must be a cookie name/],
    ['a cookie name with the USER_COOKIE separator', { LOGIN_COOKIE_NAME: 'a|b' }, /^LOGIN_COOKIE_NAME: must be a cookie name/],
    ['an extra named like a core iBridge attribute', { IBRIDGE_USER_ATTRIBUTES: 'ROLES,attr:TOKEN' }, /^IBRIDGE_USER_ATTRIBUTES: "attr:TOKEN" would repeat the TOKEN every result has/],
  ])('refuses %s, saying what it takes', (_label, env, message) => {
    expect(problemsOf(env)[0]).toMatch(message);
  });
});
