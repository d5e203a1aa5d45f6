/**
 * Imports point one way: the entry points (cli, main, compose, app) → the features (bindings, signin, ops) →
 * service → store, with web (request helpers shared by the features), config and log beside them. Log and
 * the store import nothing of ours but themselves, config only the generated contract types, the extra
 * attributes' key rule and the machine key's rules; the service is told its settings and imports no
 * configuration; features never import each other.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** What each part of src/ may import besides itself: a folder, a top-level file, or one module by its path. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // The generated contract types name the operations that OPERATIONS may list; JSON_FIELDS and
  // IBRIDGE_USER_ATTRIBUTES may name members' extra attributes, whose keys the service defines; MACHINE_KEY_*
  // are checked by the rules the service reads the membership site's tickets with; SMTP_URL by the mailer's.
  config: ['service/wsdl-types', 'service/extra-key', 'service/forms-ticket/machine-key', 'mail/smtp-url'],
  log: [],
  'startup-error': [],
  store: [],
  // The entry points hand the service its settings (src/compose/service-settings.ts).
  // The mail port (src/mail/mail.ts): the service says what to send, compose gives it the mailer.
  service: ['store', 'mail/mail'],
  web: ['config'],
  bindings: ['service', 'web', 'config', 'log'],
  signin: ['service', 'web', 'config', 'log', 'startup-error', 'mail/mail'],
  // Mail is sent for the service and the pages, through a port of its own; it knows neither.
  mail: ['log', 'startup-error'],
  provisioning: ['service', 'web', 'config', 'log'],
  // The mail metrics are counted by kind and result, as the mailer names them.
  ops: ['service', 'mail/mail', 'mail/queue', 'config', 'log'],
  oidc: ['service', 'web', 'config', 'log'],
  server: ['config', 'startup-error'],
  app: ['bindings', 'signin', 'ops', 'provisioning', 'oidc', 'service', 'web', 'config', 'log'],
  // The mail is branded as the pages are (web/branding).
  compose: ['app', 'server', 'ops', 'service', 'store', 'mail', 'web/branding', 'config', 'log'],
  // The start-up log says whether the OpenID provider is on, and if not why.
  main: ['compose', 'server', 'ops', 'oidc/provider-state', 'store/open', 'config', 'startup-error'],
  cli: ['main', 'compose/service-settings', 'compose/mailer', 'service', 'store/open', 'config', 'startup-error'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** The part of src/ a module belongs to: its top folder, or its own name for a top-level file. */
const partOf = (module: string) => module.split('/')[0]?.replace(/\.ts$/, '') ?? module;

/** Every relative import of a file (static, re-exports and dynamic), as a path under src/ without extension. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)'(\.{1,2}\/[^']+)'/g)].map((match) => match[1] ?? '');
  return specifiers.map((specifier) => relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, ''));
}

const FILES = sourceFiles(SRC);
const EDGES = FILES.flatMap((file) => {
  const from = relative(SRC, file).replace(/\.ts$/, '');
  return importsOf(file).map((to) => ({ from, to }));
});

test('every part of src/ has its place in the layers', () => {
  const parts = new Set(FILES.map((file) => partOf(relative(SRC, file))));
  expect([...parts].filter((part) => !(part in MAY_IMPORT))).toEqual([]);
});

test('the scan sees the imports (it found a known one)', () => {
  expect(EDGES).toContainEqual({ from: 'app', to: 'bindings/asmx-routes' });
});

test('imports point downward only', () => {
  const violations = EDGES.filter(({ from, to }) => {
    const [source, target] = [partOf(from), partOf(to)];
    if (source === target) return false;
    const allowed = MAY_IMPORT[source] ?? [];
    return !allowed.includes(target) && !allowed.includes(to);
  }).map(({ from, to }) => `${from} → ${to}`);
  expect(violations).toEqual([]);
});

/** The npm packages a file imports (static, re-exports and dynamic): bare specifiers, without node: built-ins. */
function packagesOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)'([^.'][^']*)'/g)]
    .map((match) => match[1] ?? '')
    .filter((specifier) => !specifier.startsWith('node:'));
}

test('inside a part, siblings stay apart: the HTTP binding imports nothing of the SOAP binding, and one dialect nothing of the other', () => {
  const apart: Array<[string, string]> = [
    ['bindings/http/', 'bindings/soap/'],
    ['bindings/soap/', 'bindings/http/'],
    ['store/sqlite/', 'store/postgres/'],
    ['store/postgres/', 'store/sqlite/'],
  ];
  const violations = EDGES.filter(({ from, to }) => apart.some(([source, target]) => from.startsWith(source) && to.startsWith(target))).map(
    ({ from, to }) => `${from} → ${to}`,
  );
  expect(violations).toEqual([]);
});

test('only the node-soap module imports soap, and only the dialects import their database drivers', () => {
  const owners: Record<string, string> = { soap: 'bindings/soap/node-soap', 'better-sqlite3': 'store/sqlite/', pg: 'store/postgres/' };
  const violations = FILES.flatMap((file) => {
    const module = relative(SRC, file).replace(/\.ts$/, '');
    return packagesOf(file)
      .filter((name) => name in owners && !module.startsWith(owners[name] ?? ''))
      .map((name) => `${module} → ${name}`);
  });
  expect(violations).toEqual([]);
});
