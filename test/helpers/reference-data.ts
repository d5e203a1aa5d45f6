import type { Services } from '../../src/service/index.js';

/** The data the ASMX transcripts and the conformance clients were made with (shared/reference/asmx/README.md). */
export const REFERENCE = {
  namespace: 'http://membership.example.org/webservices/',
  password: 's3cret',
  memberId: 'member-42',
  token: 'good-token',
  cookie: 'good-cookie',
  domain: '.example.org',
} as const;

/** Seeds through the services, as an operator would with the CLI, but with the reference's fixed values. */
export async function seedReference(services: Services): Promise<void> {
  await services.callers.add('reference-client', REFERENCE.password);
  await services.members.add({ id: REFERENCE.memberId, username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' });
  await services.sessions.create(REFERENCE.memberId, REFERENCE.domain, { cookie: REFERENCE.cookie, token: REFERENCE.token });
}

/** The second member of the page and browser tests, beside the reference's ada. */
export const BOB = { id: 'member-7', username: 'bob', email: 'bob@example.org', firstName: 'Bob' } as const;

/** Gives ada (the reference member) this password, and adds bob with the same one: the members who sign in on the pages. */
export async function adaAndBobWithPassword(services: Services, password: string): Promise<void> {
  await services.members.setPassword(REFERENCE.memberId, password);
  await services.members.add(BOB);
  await services.members.setPassword(BOB.id, password);
}
