import type { IncomingMessage } from 'node:http';
import { loadConfig } from '../../src/config/config.js';
import { clientAddress } from '../../src/web/client-address.js';

const request = (forwardedFor: string | undefined, remoteAddress = '10.0.0.5') =>
  ({ headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress } }) as unknown as IncomingMessage;
const trusting = (setting: string) => loadConfig({ TRUST_PROXY: setting }).trustProxy;

test('without a trusted proxy the socket address counts, whatever X-Forwarded-For says', () => {
  expect(clientAddress(request('203.0.113.9'), trusting('false'))).toBe('10.0.0.5');
});

test('TRUST_PROXY=true: the last X-Forwarded-For entry counts, earlier ones are the client\'s own claims', () => {
  expect(clientAddress(request('198.51.100.1, 203.0.113.9'), trusting('true'))).toBe('203.0.113.9');
  expect(clientAddress(request('203.0.113.9'), trusting('true'))).toBe('203.0.113.9');
});

test('behind a trusted proxy with no X-Forwarded-For the socket address counts', () => {
  expect(clientAddress(request(undefined), trusting('true'))).toBe('10.0.0.5');
  expect(clientAddress(request(undefined), trusting('10.0.0.5'))).toBe('10.0.0.5');
});

describe('TRUST_PROXY as the proxies\' addresses and ranges', () => {
  const trust = trusting('10.0.0.5, 192.168.0.0/16, ::1');

  test('a connection from another address is the client itself, whatever X-Forwarded-For it sends', () => {
    expect(clientAddress(request('203.0.113.9', '172.16.0.1'), trust)).toBe('172.16.0.1');
    expect(clientAddress(request('203.0.113.9', '::ffff:172.16.0.1'), trust)).toBe('::ffff:172.16.0.1');
  });

  test('through trusted proxies, the right-most entry that is not one of them is the client', () => {
    expect(clientAddress(request('198.51.100.1, 203.0.113.9'), trust)).toBe('203.0.113.9');
    expect(clientAddress(request('198.51.100.1, 203.0.113.9, 192.168.4.4'), trust)).toBe('203.0.113.9');
    expect(clientAddress(request('203.0.113.9, ::1', '::1'), trust)).toBe('203.0.113.9');
    expect(clientAddress(request('203.0.113.9', '::ffff:10.0.0.5'), trust)).toBe('203.0.113.9');
  });

  test('when every entry is a trusted proxy, the first one is the client', () => {
    expect(clientAddress(request('192.168.1.1, 192.168.2.2'), trust)).toBe('192.168.1.1');
  });
});
