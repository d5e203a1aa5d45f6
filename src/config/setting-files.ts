import { readFileSync, statSync } from 'node:fs';
import { SECRET_SETTINGS } from './secrets.js';

/** The settings that may be read from a file: the secrets. */
const FROM_FILE = Object.keys(SECRET_SETTINGS);

/** The variable that names the file a setting is read from: SECRET_KEY_FILE for SECRET_KEY. */
export const fileVariable = <Name extends string>(name: Name): `${Name}_FILE` => `${name}_FILE`;

/** Every <NAME>_FILE variable there is, each after the setting it gives. */
export const withFileVariables = (names: readonly string[]): string[] => names.flatMap((name) => (FROM_FILE.includes(name) ? [name, fileVariable(name)] : [name]));

/** A secret is a line or a few; a larger file is the wrong file (and /dev/zero would never end). */
const MAX_BYTES = 64 * 1024;

export interface SettingFiles {
  /** The settings read from files, by name. */
  readonly values: Readonly<Record<string, string>>;
  /** The path each setting was read from. */
  readonly paths: Readonly<Record<string, string>>;
  readonly problems: readonly string[];
}

/**
 * Reads the settings whose <NAME>_FILE variable `given` holds: the file's content, without its trailing line
 * break, is the setting's value, validated as the variable would be. A setting given both ways, a file that
 * cannot be read, that is not a file, is too large or is empty, is a problem that names the variables and the
 * path, never what the file holds.
 */
export function readSettingFiles(given: Readonly<Record<string, string | undefined>>): SettingFiles {
  const values: Record<string, string> = {};
  const paths: Record<string, string> = {};
  const problems: string[] = [];
  for (const name of FROM_FILE) {
    const variable = fileVariable(name);
    const path = given[variable];
    if (path === undefined) continue;
    if (given[name] !== undefined) {
      problems.push(`${name}, ${variable}: set one of them, not both`);
      continue;
    }
    const read = readSettingFile(path);
    if ('problem' in read) problems.push(`${variable}: ${read.problem}`);
    else {
      values[name] = read.value;
      paths[name] = path;
    }
  }
  return { values, paths, problems };
}

function readSettingFile(path: string): { value: string } | { problem: string } {
  try {
    const stats = statSync(path);
    if (!stats.isFile()) return { problem: `${path} is not a file` };
    if (stats.size > MAX_BYTES) return { problem: `${path} is larger than ${MAX_BYTES / 1024} KiB` };
    const value = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    return value === '' ? { problem: `${path} is empty` } : { value };
  } catch (error) {
    // Node's message names the error and the path ("ENOENT: no such file or directory, open '…'"): keep the first.
    return { problem: `cannot read ${path}: ${(error as Error).message.replace(/, \w+ '.*'$/s, '')}` };
  }
}
