/**
 * The layers as docs/architecture.md states them, checked against the imports of src/: its table names, for
 * each part of src/ (a top folder or a top-level file), its layer and what it imports of the other parts. Every
 * import between parts must be one its row names, and everything a row names must be imported, so that the
 * table says exactly what the code does. The layers themselves: imports point from the entry points to the
 * features to the service to the store; features never import each other; a part beside them (web, config, log,
 * mail, startup-error) imports no entry point and no feature; the service imports no configuration.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const ARCHITECTURE = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');

/** The layers, from the top; a part beside them stands outside this order. */
const RANKED = ['entry point', 'feature', 'service', 'store'] as const;
type Layer = (typeof RANKED)[number] | 'beside';

interface Row {
  part: string;
  layer: Layer;
  /** Parts and single modules (as paths under src/ without extension) the part imports of the others. */
  imports: string[];
}

/** The text of the architecture page's Layers section. */
function layersSection(): string {
  const start = ARCHITECTURE.indexOf('\n## Layers\n');
  const end = ARCHITECTURE.indexOf('\n## ', start + 1);
  return ARCHITECTURE.slice(start, end < 0 ? undefined : end);
}

/** The rows of the Layers table: what is in parentheses explains, and names nothing imported. */
function documentedRows(): Row[] {
  return [...layersSection().matchAll(/^\| `([^`]+)` \| ([a-z ]+) \| (.+) \|$/gm)].map(([, part = '', layer = '', cell = '']) => ({
    part,
    layer: layer as Layer,
    imports: [...cell.replace(/\([^)]*\)/g, '').matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ''),
  }));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** The part of src/ a module belongs to: its top folder, or its own name for a top-level file. */
const partOf = (module: string) => module.split('/')[0]?.replace(/\.ts$/, '') ?? module;

/** Every relative import of a file (static, side-effect, re-exports and dynamic), as a path under src/ without extension. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s*)'(\.{1,2}\/[^']+)'/gm)].map((match) => match[1] ?? '');
  return specifiers.map((specifier) => relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, ''));
}

const FILES = sourceFiles(SRC);
const MODULES = new Set(FILES.map((file) => relative(SRC, file).replace(/\.ts$/, '')));
const PARTS = new Set([...MODULES].map(partOf));
/** Every import of src/, by module. */
const IMPORTS = FILES.flatMap((file) => {
  const from = relative(SRC, file).replace(/\.ts$/, '');
  return importsOf(file).map((to) => ({ from, to }));
});
/** The imports from one part of src/ to another. */
const EDGES = IMPORTS.filter(({ from, to }) => partOf(from) !== partOf(to));
const ROWS = documentedRows();
const ROW = new Map(ROWS.map((row) => [row.part, row]));

/** Whether an entry of a row (a whole part, or one module) covers an imported module. */
const covers = (entry: string, module: string) => entry === module || entry === partOf(module);

test('the scan sees the imports and the table (a known import, a known row)', () => {
  expect(EDGES).toContainEqual({ from: 'app', to: 'bindings/asmx-routes' });
  expect(ROW.get('web')).toEqual({ part: 'web', layer: 'beside', imports: ['config'] });
});

test('every part of src/ has one row in the table, with a layer, and every row is a part of src/', () => {
  expect(ROWS.map((row) => row.part).sort()).toEqual([...PARTS].sort());
  expect(ROWS.filter((row) => ![...RANKED, 'beside'].includes(row.layer))).toEqual([]);
});

test("the layers' sentence names the table's entry points and features", () => {
  const named = (layer: string) => [...(new RegExp(`the ${layer} \\(([^)]*)\\)`).exec(layersSection())?.[1] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]);
  expect(named('entry points').sort()).toEqual(ROWS.filter((row) => row.layer === 'entry point').map((row) => row.part).sort());
  expect(named('features').sort()).toEqual(ROWS.filter((row) => row.layer === 'feature').map((row) => row.part).sort());
});

test('every import between parts is one its row names', () => {
  const violations = EDGES.filter(({ from, to }) => !(ROW.get(partOf(from))?.imports ?? []).some((entry) => covers(entry, to)));
  expect(violations.map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
});

test('everything a row names is a part or module of src/, and is imported', () => {
  const unused = ROWS.flatMap(({ part, imports }) =>
    imports.filter((entry) => !EDGES.some(({ from, to }) => partOf(from) === part && covers(entry, to))).map((entry) => `${part} → ${entry}`),
  );
  const unknown = ROWS.flatMap(({ part, imports }) => imports.filter((entry) => !PARTS.has(entry) && !MODULES.has(entry)).map((entry) => `${part} → ${entry}`));
  expect({ unused, unknown }).toEqual({ unused: [], unknown: [] });
});

test('imports point downward: no feature imports another, no part beside imports an entry point or a feature', () => {
  const layerOf = (module: string) => ROW.get(partOf(module))?.layer ?? 'beside';
  const rank = (layer: Layer) => RANKED.indexOf(layer as (typeof RANKED)[number]);
  const upward = EDGES.filter(({ from, to }) => {
    const [source, target] = [layerOf(from), layerOf(to)];
    if (target === 'beside') return false;
    if (source === 'beside') return target === 'entry point' || target === 'feature';
    return !(rank(source) < rank(target) || (source === 'entry point' && target === 'entry point'));
  });
  expect(upward.map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
});

test('the service imports no configuration: it is told its settings', () => {
  expect(EDGES.filter(({ from, to }) => partOf(from) === 'service' && partOf(to) === 'config')).toEqual([]);
});

/** The npm packages a file imports (static, side-effect, re-exports and dynamic): bare specifiers, without node: built-ins. */
function packagesOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s*)'([^.'][^']*)'/gm)]
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
  const violations = IMPORTS.filter(({ from, to }) => apart.some(([source, target]) => from.startsWith(source) && to.startsWith(target))).map(
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
