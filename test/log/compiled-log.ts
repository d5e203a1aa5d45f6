import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));
const sources = join(root, 'src/log');

/**
 * src/log compiled to JavaScript modules in a temporary directory, for a child process to import: what a child
 * runs is the source under test, whether or not dist/ has been built. The modules find their packages through
 * a link to the project's node_modules.
 */
export async function compileLog(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'log-'));
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
  for (const file of (await readdir(sources)).filter((name) => name.endsWith('.ts'))) {
    const { outputText } = ts.transpileModule(await readFile(join(sources, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    await writeFile(join(dir, file.replace(/\.ts$/, '.js')), outputText);
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
