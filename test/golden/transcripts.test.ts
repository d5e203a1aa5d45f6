import { readdirSync, readFileSync } from 'node:fs';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { sendRaw } from '../helpers/raw-http.js';
import { fillPlaceholders, JSON_REFUSED, PLACEHOLDERS } from './expectations.js';

const DIR = new URL('./transcripts/', import.meta.url);
const IN_SCOPE = /^(a0[1-5]|a07|[b-g]\d\d)-/;
const CASES = readdirSync(DIR)
  .filter((f) => f.endsWith('.request'))
  .map((f) => f.slice(0, -'.request'.length))
  .filter((name) => IN_SCOPE.test(name))
  .sort();

interface Transcript {
  status: number;
  contentType: string;
  body: Buffer;
}

function readTranscript(name: string): Transcript {
  const raw = readFileSync(new URL(`${name}.response`, DIR));
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, split).toString('latin1').split('\r\n');
  const contentType = head.find((l) => l.toLowerCase().startsWith('content-type:'))?.slice('content-type:'.length).trim() ?? '';
  return { status: Number(head[0]?.split(' ')[1]), contentType, body: raw.subarray(split + 4) };
}

/** Addresses are compared without host and port: ours follow the Host header, Mono's the listening port. */
const withoutHostPort = (text: string) => text.replace(/http:\/\/[A-Za-z0-9.-]+(:\d+)?\//g, 'http://HOST/');

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

test('the transcript set is complete', () => {
  expect(CASES).toHaveLength(5 + 1 + 24 + 27 + 9 + 9 + 8 + 9);
});

describe.each(CASES)('%s', (name) => {
  test('answers as ASMX did', async () => {
    const request = readFileSync(new URL(`${name}.request`, DIR));
    const expected = readTranscript(name);
    const head = request.subarray(0, 5).toString() === 'HEAD ';
    const response = await sendRaw(app.port, request, { head });

    if (JSON_REFUSED.has(name)) {
      expect(response.status).toBe(500);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.body.toString()).toContain('[ScriptService]');
      return;
    }
    expect(response.status).toBe(expected.status);
    // Ours, not ASMX's: no answer may be sniffed into another type (the text errors echo the method name).
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const contentLength = Number(response.headers.get('content-length'));
    // HEAD: the length of the body a GET would carry, and no body.
    if (head) expect(contentLength).toBeGreaterThan(0);
    else expect(contentLength).toBe(response.body.length);
    if (expected.contentType.startsWith('text/html')) {
      // ASP.NET error and help pages: only the status is part of the contract.
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      return;
    }
    expect(response.headers.get('content-type')).toBe(expected.contentType);
    const placeholders = PLACEHOLDERS[name];
    const expectedBody = placeholders ? fillPlaceholders(expected.body.toString('utf8'), placeholders) : expected.body.toString('utf8');
    expect(withoutHostPort(response.body.toString('utf8'))).toBe(withoutHostPort(expectedBody));
  });
});
