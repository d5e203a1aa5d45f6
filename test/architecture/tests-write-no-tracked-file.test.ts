/**
 * The tests change no tracked file (`npm test` leaves the checkout as it was): none names an image in docs/ (the
 * screenshots there are scripts/screenshots.mjs's, run on purpose), and no browser test saves a screenshot at all.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const TEST = fileURLToPath(new URL('../', import.meta.url));
const THIS_FILE = fileURLToPath(import.meta.url);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.[cm]?[jt]s$/.test(entry.name) && path !== THIS_FILE ? [path] : [];
  });
}

test('no test file has a path to an image in docs/ (the screenshots) or saves a screenshot', () => {
  const offenders = sources(TEST).flatMap((path) => {
    const text = readFileSync(path, 'utf8');
    const found = [
      ...(/['"`](?:\.\.\/)+docs\/[^'"`]*\.(?:png|jpe?g)['"`]/.test(text) ? ['a path to an image in docs/'] : []),
      ...(/\.screenshot\(/.test(text) ? ['a screenshot'] : []),
    ];
    return found.map((what) => `${relative(TEST, path)}: ${what}`);
  });
  expect(offenders).toEqual([]);
});
