/** /healthz and /readyz: plain, uncached answers; readiness follows the store and the draining flag. */
import { jest } from '@jest/globals';
import request from 'supertest';
import { createReadiness, type Readiness } from '../../src/ops/readiness.js';
import { useFakeTimers } from '../helpers/fake-timers.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let app: TestApp;
beforeEach(async () => {
  app = await startTestApp({ seed: false });
});
afterEach(() => app.close());

const http = () => request(app.baseUrl);

describe('/healthz', () => {
  it('answers 200 "ok" as text/plain with Content-Length and Cache-Control: no-store', async () => {
    const res = await http().get('/healthz').expect(200);
    expect(res.text).toBe('ok\n');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-length']).toBe('3');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers HEAD without a body, and stays 200 while draining or with the store gone (the process is alive)', async () => {
    const head = await http().head('/healthz').expect(200);
    expect(head.headers['content-length']).toBe('3');
    app.readiness.drain();
    await app.store.close();
    await http().get('/healthz').expect(200, 'ok\n');
  });

  it('is not under BASE_PATH and is not a log line of its own', async () => {
    await app.close();
    app = await startTestApp({ seed: false, env: { BASE_PATH: '/webservices' } });
    const before = app.logLines.length;
    await http().get('/healthz').expect(200);
    await http().get('/webservices/healthz').expect(404);
    expect(app.logLines.slice(before)).toEqual([]);
  });

  it('other methods are not it', async () => {
    await http().post('/healthz').expect(404);
  });
});

describe('/readyz', () => {
  it('answers 200 "ok" while the store answers its ping', async () => {
    const res = await http().get('/readyz').expect(200);
    expect(res.text).toBe('ok\n');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('answers 503 "draining" once the instance drains', async () => {
    await http().get('/readyz').expect(200);
    app.readiness.drain();
    const res = await http().get('/readyz').expect(503);
    expect(res.text).toBe('draining\n');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-length']).toBe(String('draining\n'.length));
  });

  it('answers 503 "unreachable" when the store is closed, logging it once', async () => {
    await app.store.close();
    const before = app.logLines.length;
    await http().get('/readyz').expect(503, 'unreachable\n');
    await http().get('/readyz').expect(503, 'unreachable\n');
    const warnings = app.logLines.slice(before).filter((line) => String(line.message).startsWith('not ready'));
    expect(warnings).toEqual([expect.objectContaining({ level: 'warn', message: 'not ready: the store cannot be reached' })]);
  });
});

describe('createReadiness', () => {
  it('a ping slower than the timeout is "timeout" once the timeout has passed; one that recovers is ready again', async () => {
    useFakeTimers();
    try {
      let hang = true;
      const store = { ping: () => (hang ? new Promise<void>(() => undefined) : Promise.resolve()) };
      const readiness = createReadiness({ store, timeoutMs: 50 });
      let answer: Readiness | undefined;
      const checked = readiness.check().then((result) => (answer = result));
      await jest.advanceTimersByTimeAsync(49);
      expect(answer).toBeUndefined();
      await jest.advanceTimersByTimeAsync(1);
      await checked;
      expect(answer).toEqual({ ready: false, reason: 'timeout' });
      hang = false;
      await expect(readiness.check()).resolves.toEqual({ ready: true });
    } finally {
      jest.useRealTimers();
    }
  });

  it('a ping that throws synchronously is "unreachable"; draining wins over everything and does not ping', async () => {
    let pings = 0;
    const readiness = createReadiness({
      store: {
        ping: () => {
          pings += 1;
          throw new Error('gone');
        },
      },
    });
    await expect(readiness.check()).resolves.toEqual({ ready: false, reason: 'unreachable' });
    expect(readiness.draining).toBe(false);
    readiness.drain();
    expect(readiness.draining).toBe(true);
    await expect(readiness.check()).resolves.toEqual({ ready: false, reason: 'draining' });
    expect(pings).toBe(1);
  });
});
