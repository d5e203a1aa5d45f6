import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type request from 'supertest';
import { createDiscovery } from '../../src/bindings/discovery/index.js';
import { loadConfig, type Config, type Environment } from '../../src/config/config.js';
import { REFERENCE } from './reference-data.js';

/** The discovery documents' tests: the handler on a server of its own, and the reference transcripts to compare with. */

const TRANSCRIPTS = new URL('../golden/transcripts/', import.meta.url);

/** The namespace the reference transcripts were captured with. */
export const REFERENCE_NAMESPACE = REFERENCE.namespace;

export function testConfig(env: Environment = {}, overrides: Partial<Config> = {}): Config {
  return { ...loadConfig(env), ...overrides };
}

export function discoveryServer(config: Config): Server {
  const discovery = createDiscovery(config);
  return createServer((req, res) => discovery.handle(req, res));
}

/** A reference response split at the first blank line: its header lines and its body. */
export function transcript(name: string): { headers: Map<string, string>; body: string } {
  const raw = readFileSync(new URL(`${name}.response`, TRANSCRIPTS), 'utf8');
  const end = raw.indexOf('\r\n\r\n');
  const headers = new Map<string, string>();
  for (const line of raw.slice(0, end).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: raw.slice(end + 4) };
}

/** The response is the reference transcript's, byte for byte: status 200, Content-Type, Cache-Control, Content-Length and body. */
export function expectTranscript(res: request.Response, name: string): void {
  const reference = transcript(name);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe(reference.headers.get('content-type'));
  expect(res.headers['cache-control']).toBe(reference.headers.get('cache-control'));
  expect(res.headers['content-length']).toBe(reference.headers.get('content-length'));
  expect(res.text).toBe(reference.body);
}
