import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { StartupError } from '../startup-error.js';

// src/signin/ and dist/signin/ are both two levels below the package root, where templates/ sits.
const OWN_SCRIPT = new URL('../../templates/scripts/passkeys.js', import.meta.url);

/** A year: each script's address names its content's hash, so that a new version is a new address. */
const CACHE = 'public, max-age=31536000, immutable';

/** The passkey scripts the pages load, in order: the browser helper of @simplewebauthn/browser, then ours. */
export interface PasskeyAssets {
  /** Their addresses, as the pages' script elements name them. */
  paths: readonly string[];
  /** Serves them, with a year's cache and nothing else to run. */
  router: Router;
}

/** The browser helper's bundle (a UMD script defining SimpleWebAuthnBrowser), from the installed package. */
function browserHelper(): string {
  // The package exports its CommonJS entry for require: script/index.js, beside dist/.
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  return join(dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js');
}

/** Reads both scripts once, at start-up, under `base` (below LOGIN_PATH): a missing one stops the start. */
export function loadPasskeyAssets(base: string): PasskeyAssets {
  const scripts = [
    { name: 'webauthn', file: browserHelper() },
    { name: 'passkeys', file: fileURLToPath(OWN_SCRIPT) },
  ].map(({ name, file }) => {
    let body: Buffer;
    try {
      body = readFileSync(file);
    } catch (error) {
      throw new StartupError(`passkey script ${file}: ${(error as Error).message}`, { cause: error });
    }
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
    return { path: `${base}/${name}-${hash}.js`, body };
  });
  const router = express.Router();
  for (const { path, body } of scripts) {
    router.get(path, (_req, res) => {
      res.setHeader('Cache-Control', CACHE);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Content-Security-Policy', "default-src 'none'");
      res.type('text/javascript; charset=utf-8').send(body);
    });
  }
  return { paths: scripts.map(({ path }) => path), router };
}
