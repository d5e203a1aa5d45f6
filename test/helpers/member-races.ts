import type { MemberAttributes, Services } from '../../src/service/index.js';
import type { MemberRow, Store } from '../../src/store/store.js';
import type { OpenStore } from './temp-store.js';
import { servicesOver } from './test-services.js';

/** The store and the services over it that each test of a suite gets (set before each). */
export interface RaceGround {
  store: Store;
  services: Services;
}

/**
 * A store for each test of the suite, opened with `open` and closed after it, holding the member m1 (username ada)
 * with these attributes: the ground two writers race on.
 */
export function raceGroundForEachTest(open: OpenStore, attributes: MemberAttributes): RaceGround {
  const ground = {} as RaceGround;
  let cleanup = async () => {};
  beforeEach(async () => {
    ({ store: ground.store, cleanup } = await open());
    ground.services = servicesOver(ground.store);
    await ground.services.members.add({ id: 'm1', username: 'ada', attributes });
  });
  afterEach(() => cleanup());
  return ground;
}

/** The store with getMember replaced; every other method is the store's own. */
function withGetMember(store: Store, getMember: (id: string) => Promise<MemberRow | null>): Store {
  return Object.assign(Object.create(store) as Store, { getMember });
}

/**
 * The store, its first `readers` member reads held until all of them have read: the writes that follow race,
 * each made on what its writer read, as two admins' updates of one member at the same moment do.
 */
export function readingTogether(store: Store, readers = 2): Store {
  let arrived = 0;
  let release = () => {};
  const together = new Promise<void>((resolve) => {
    release = resolve;
  });
  return withGetMember(store, async (id) => {
    const member = await store.getMember(id);
    arrived += 1;
    if (arrived === readers) release();
    if (arrived <= readers) await together;
    return member;
  });
}

/**
 * The store, each member read followed by another writer's change of that member (its flag written as it is):
 * whoever read it is always one version behind.
 */
export function changedAfterEveryRead(store: Store): Store {
  return withGetMember(store, async (id) => {
    const member = await store.getMember(id);
    if (member) await store.setMemberEnabled(id, member.enabled, Date.now());
    return member;
  });
}
