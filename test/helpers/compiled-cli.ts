import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => (entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : Promise.resolve(entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []))),
  );
  return nested.flat();
}

/**
 * src/ compiled to JavaScript modules in a temporary directory laid out as the package is (dist/, wsdl/,
 * templates/, package.json, node_modules linked), for a child process to run the admin CLI: what it runs is the
 * source under test, whether or not dist/ has been built (as test/log/compiled-log.ts does for the logger).
 */
export async function compileCli(): Promise<{ cliPath: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'cli-'));
  for (const name of ['node_modules', 'wsdl', 'templates']) await symlink(join(root, name), join(dir, name), 'dir');
  await copyFile(join(root, 'package.json'), join(dir, 'package.json'));
  const src = join(root, 'src');
  for (const file of await sourceFiles(src)) {
    const { outputText } = ts.transpileModule(await readFile(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    const out = join(dir, 'dist', relative(src, file)).replace(/\.ts$/, '.js');
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, outputText);
  }
  return { cliPath: join(dir, 'dist', 'cli', 'index.js'), remove: () => rm(dir, { recursive: true, force: true }) };
}
