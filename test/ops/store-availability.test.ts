/**
 * The store becoming unavailable (a full disk, a read-only or locked database) is logged once per burst, not per
 * request: the first failure at error, the rest counted, and one info line once the failed operations work again
 * and none has failed for the quiet period. Every failure is counted by cause.
 */
import { jest } from '@jest/globals';
import { createLogger } from '../../src/log/logger.js';
import { RECOVERY_QUIET_MS, watchStoreAvailability, type StoreAvailability } from '../../src/ops/store-availability.js';
import { StoreUnavailableError, type StoreUnavailableReason } from '../../src/service/index.js';
import { useFakeTimers } from '../helpers/fake-timers.js';
import { logCapture } from '../helpers/log-capture.js';
import { nextTurn } from '../helpers/wait.js';

const DATABASE = '/var/lib/authentication-asmx/authentication.sqlite';
const full = () => new StoreUnavailableError('disk-full', DATABASE, 'SQLITE_FULL');
const locked = () => new StoreUnavailableError('locked', DATABASE, 'SQLITE_BUSY');

let lines: Array<Record<string, unknown>>;
let counted: StoreUnavailableReason[];
let availability: StoreAvailability;

beforeEach(() => {
  useFakeTimers();
  const capture = logCapture();
  lines = capture.lines;
  counted = [];
  availability = watchStoreAvailability({ logger: createLogger('debug', capture.stream), metrics: { storeUnavailable: (reason) => counted.push(reason) } });
});
afterEach(() => jest.useRealTimers());

/** The log lines written so far (the logger writes at the end of the event loop's turn). */
async function logged(): Promise<Array<Record<string, unknown>>> {
  await nextTurn();
  return lines;
}

test('the first failure of a burst is logged at error with its cause and database; the next ones only counted', async () => {
  availability.failed('createSession', full());
  for (let i = 0; i < 20; i += 1) availability.failed(i % 2 ? 'createSession' : 'recordFailure', full());
  expect(await logged()).toEqual([
    expect.objectContaining({
      level: 'error',
      message: 'store unavailable',
      reason: 'disk-full',
      database: DATABASE,
      operation: 'createSession',
      error: `the file system holding ${DATABASE} is full (SQLITE_FULL): free space on it`,
    }),
  ]);
  expect(counted).toEqual(Array(21).fill('disk-full'));
});

test('other failures are neither logged nor counted here', async () => {
  availability.failed('createSession', new Error('connection lost'));
  expect(await logged()).toEqual([]);
  expect(counted).toEqual([]);
});

test('once a failed operation works again and nothing fails for the quiet period, one info line says so, with the count', async () => {
  for (let i = 0; i < 5; i += 1) availability.failed('createSession', full());
  availability.succeeded('getMember');
  await jest.advanceTimersByTimeAsync(RECOVERY_QUIET_MS * 2);
  expect(await logged()).toHaveLength(1);

  availability.succeeded('createSession');
  await jest.advanceTimersByTimeAsync(RECOVERY_QUIET_MS - 1);
  expect(await logged()).toHaveLength(1);
  await jest.advanceTimersByTimeAsync(1);
  expect((await logged())[1]).toEqual(
    expect.objectContaining({ level: 'info', message: 'store available again', reason: 'disk-full', database: DATABASE, failures: 5 }),
  );
  await jest.advanceTimersByTimeAsync(RECOVERY_QUIET_MS * 2);
  expect(await logged()).toHaveLength(2);
});

test('a failure within the quiet period keeps the burst open; a failure after the recovery starts a new one', async () => {
  availability.failed('createSession', full());
  availability.succeeded('createSession');
  await jest.advanceTimersByTimeAsync(RECOVERY_QUIET_MS / 2);
  availability.failed('createSession', full());
  await jest.advanceTimersByTimeAsync(RECOVERY_QUIET_MS * 2);
  expect((await logged()).map((line) => line.message)).toEqual(['store unavailable']);

  availability.succeeded('createSession');
  await jest.advanceTimersByTimeAsync(RECOVERY_QUIET_MS);
  availability.failed('createSession', full());
  expect((await logged()).map((line) => [line.message, line.failures])).toEqual([
    ['store unavailable', undefined],
    ['store available again', 2],
    ['store unavailable', undefined],
  ]);
});

test('each cause has its burst', async () => {
  availability.failed('createSession', full());
  availability.failed('touchSessions', locked());
  availability.failed('createSession', full());
  availability.failed('touchSessions', locked());
  expect((await logged()).map((line) => line.reason)).toEqual(['disk-full', 'locked']);
  expect(counted).toEqual(['disk-full', 'locked', 'disk-full', 'locked']);
});
