import type { Services } from '../../src/service/index.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { tempServices } from '../helpers/test-services.js';

let services: Services;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ services, cleanup } = await tempServices());
});
afterEach(() => cleanup());

test('a username that differs from an existing one only in letter case is refused, as sign-in ignores case', async () => {
  await services.members.add({ id: 'm1', username: 'Ada' });
  expect((await serviceErrorOf(services.members.add({ id: 'm2', username: 'ada' }))).code).toBe('MEMBER_EXISTS');
  expect((await services.members.list()).map((m) => m.id)).toEqual(['m1']);
});
