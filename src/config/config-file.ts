import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.js';
import type { Environment } from './schema.js';

/** Reads an optional JSON file of settings (CONFIG_FILE); the environment wins over it. */
export function readConfigFile(path: string): Environment {
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
