import { randomBytes } from 'node:crypto';
import { createServices, type Services } from '../../src/service/index.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { tempSqliteStore } from '../helpers/temp-store.js';

let services: Services;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  const temp = await tempSqliteStore();
  cleanup = temp.cleanup;
  services = createServices({ store: temp.store, secretKey: randomBytes(32), session: { absoluteTimeoutSeconds: 3600, idleTimeoutSeconds: 600, slidingIdle: true } });
});
afterEach(() => cleanup());

test('a username that differs from an existing one only in letter case is refused, as sign-in ignores case', async () => {
  await services.members.add({ id: 'm1', username: 'Ada' });
  expect((await serviceErrorOf(services.members.add({ id: 'm2', username: 'ada' }))).code).toBe('MEMBER_EXISTS');
  expect((await services.members.list()).map((m) => m.id)).toEqual(['m1']);
});
