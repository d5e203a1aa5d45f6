import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { program, type Requirement } from './requirements.js';

export const OPENSSL_PATH = process.env.OPENSSL_PATH ?? '/usr/bin/openssl';

/** The openssl command, which makes the certificates (test/helpers/requirements.ts: CI fails where it is missing). */
export const OPENSSL: Requirement = program('openssl', OPENSSL_PATH, 'apt-get install openssl');

export interface Certificate {
  certPath: string;
  keyPath: string;
  /** The certificate's PEM, to trust it as a CA in the test's requests or serve it. */
  cert: string;
  /** The private key's PEM. */
  key: string;
}

/** The key pair a certificate holds: P-256 for TLS, RSA for SAML (whose signatures are RSA). */
const KEY_ARGS = { ec: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'], rsa: ['-newkey', 'rsa:2048'] } as const;

/**
 * A self-signed certificate for localhost and 127.0.0.1, valid for a day, made with openssl in dir (the key
 * readable by its owner only). name tells several apart in one dir.
 */
export function selfSignedCertificate(dir: string, key: keyof typeof KEY_ARGS = 'ec', name = 'localhost'): Certificate {
  const certPath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  const args = ['req', '-x509', ...KEY_ARGS[key], '-nodes', '-days', '1'];
  args.push('-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', keyPath, '-out', certPath);
  const made = spawnSync(OPENSSL_PATH, args, { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl req failed: ${made.stderr || made.error?.message}`);
  chmodSync(keyPath, 0o600);
  return { certPath, keyPath, cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
}
