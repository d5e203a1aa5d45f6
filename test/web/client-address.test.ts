import type { IncomingMessage } from 'node:http';
import { clientAddress } from '../../src/web/client-address.js';

const request = (forwardedFor: string | undefined, remoteAddress = '10.0.0.5') =>
  ({ headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress } }) as unknown as IncomingMessage;

test('without a trusted proxy the socket address counts, whatever X-Forwarded-For says', () => {
  expect(clientAddress(request('203.0.113.9'), false)).toBe('10.0.0.5');
});

test('behind a trusted proxy the last X-Forwarded-For entry counts: earlier ones are the client\'s own claims', () => {
  expect(clientAddress(request('198.51.100.1, 203.0.113.9'), true)).toBe('203.0.113.9');
  expect(clientAddress(request('203.0.113.9'), true)).toBe('203.0.113.9');
});

test('behind a trusted proxy with no X-Forwarded-For the socket address counts', () => {
  expect(clientAddress(request(undefined), true)).toBe('10.0.0.5');
});
