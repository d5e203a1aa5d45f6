/**
 * Imports point one way: the entry points (cli, main, compose, app) → the features (bindings, signin, ops) →
 * service → store, with web (request helpers shared by the features), config and log beside them. Log and
 * the store import nothing of ours but themselves, config only the generated contract types and the extra
 * attributes' key rule; the service is told its settings and imports no configuration; features never
 * import each other.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** What each part of src/ may import besides itself: a folder, a top-level file, or one module by its path. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // The generated contract types name the operations that OPERATIONS may list; JSON_FIELDS and
  // IBRIDGE_USER_ATTRIBUTES may name members' extra attributes, whose keys the service defines.
  config: ['service/wsdl-types', 'service/extra-key'],
  log: [],
  'startup-error': [],
  store: [],
  // The entry points hand the service its settings (src/compose/service-settings.ts).
  service: ['store'],
  web: ['config'],
  bindings: ['service', 'web', 'config', 'log'],
  signin: ['service', 'web', 'config', 'log', 'startup-error'],
  // Mail is sent for the service and the pages, through a port of its own; it knows neither.
  mail: ['log', 'startup-error'],
  provisioning: ['service', 'web', 'config', 'log'],
  ops: ['service', 'config', 'log'],
  server: ['config', 'startup-error'],
  app: ['bindings', 'signin', 'ops', 'service', 'web', 'config', 'log'],
  compose: ['app', 'server', 'ops', 'service', 'store', 'config', 'log'],
  main: ['compose', 'server', 'ops', 'store/open', 'config', 'startup-error'],
  cli: ['main', 'compose/service-settings', 'service', 'store/open', 'config', 'startup-error'],
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
