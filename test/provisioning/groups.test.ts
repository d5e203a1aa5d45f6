/**
 * /Groups over HTTP on both stores, with Entra ID's and Okta's request shapes: a Group is one of the association's
 * roles, and its members are the members holding it, so each change shows in the member's next ASMX result
 * (pa_webroles in the JSON format), in the OpenID userinfo's membership claim (a signed-in relying party's
 * access token), and in the SAML roles attribute (an SP's assertion for ada, signed in); roles given by the CLI are
 * Groups too; every change to a member
 * is its member-changed event with the provisioning client as actor.
 */
import * as oidcClient from 'openid-client';
import { GROUP_SCHEMA, PATCH_OP } from '../../src/provisioning/urns.js';
import { callAsmx } from '../helpers/asmx-request.js';
import { formOf, PageClient } from '../helpers/page-client.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { REFERENCE } from '../helpers/reference-data.js';
import type { TestApp } from '../helpers/test-app.js';
import { authorizationRequest, callbackUrl, follow, PASSWORD, register, relyingParty, signInThrough, startOidcApp } from '../oidc/relying-party.js';
import { registerSp } from '../saml/service-provider.js';
import { expectScimError } from './refusal.js';

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

function suite(store: 'sqlite' | 'postgres'): void {
  let app: TestApp;
  let send: (method: string, path: string, body?: unknown) => Promise<Reply>;
  /** ada signed in at a relying party: its userinfo, read again after each change. */
  let userinfo: () => Promise<Record<string, unknown>>;
  /** ada, signed in, signing in to a SAML SP: the roles attribute of its assertion. */
  let samlRoles: () => Promise<string[]>;

  beforeEach(async () => {
    app = await startOidcApp({ store, env: { OPERATIONS: 'ValidateUser,AuthenticateToken', RESULT_FORMAT: 'json', JSON_FIELDS: 'status,contactid,pa_webroles' } });
    const { token } = await app.services.provisioners.add('entra');
    send = async (method, path, body) => {
      const response = await fetch(`${app.baseUrl}/scim/v2${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/scim+json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    };
    const config = await relyingParty(app, await register(app, { firstParty: true }));
    const request = await authorizationRequest(config);
    const browser = new PageClient(app.baseUrl);
    const back = await signInThrough(browser, app, request.url);
    const tokens = await oidcClient.authorizationCodeGrant(config, callbackUrl(back), { pkceCodeVerifier: request.verifier, expectedState: request.state, expectedNonce: request.nonce });
    userinfo = () => oidcClient.fetchUserInfo(config, tokens.access_token, REFERENCE.memberId) as Promise<Record<string, unknown>>;
    const sp = await registerSp(app, 'portal', { saml: { disableRequestedAuthnContext: true } });
    samlRoles = async () => {
      const url = new URL(await sp.saml.getAuthorizeUrlAsync('relay', undefined, {}));
      const posted = await follow(browser, app, await browser.get(url.pathname + url.search));
      const { profile } = await sp.saml.validatePostResponseAsync({ SAMLResponse: formOf(posted.text).hidden['SAMLResponse'] ?? '' });
      const roles = profile?.['roles'];
      return roles === undefined ? [] : ([] as string[]).concat(roles as string | string[]);
    };
  });
  afterEach(() => app.close());

  const patch = (id: string, operations: unknown[]) => send('PATCH', `/Groups/${id}`, { schemas: [PATCH_OP], Operations: operations });

  /** ada's roles as an ASMX result, the OpenID userinfo and the SAML roles attribute carry them: the same in all three. */
  async function adaRoles(): Promise<Array<{ id: string; name: string }>> {
    const result = (await callAsmx(app, 'soap11', 'ValidateUser', { securityPassword: REFERENCE.password, username: 'ada', password: PASSWORD })).result ?? '';
    const asmx = (JSON.parse(result) as { pa_webroles: Array<{ id: string; name: string }> }).pa_webroles;
    const claims = (await userinfo()).roles as Array<{ id: string; name: string }>;
    expect(claims).toEqual(asmx);
    expect(await samlRoles()).toEqual(asmx.map((role) => role.name));
    return asmx;
  }

  test("Entra ID's shapes: create empty, add a member, rename, remove by a members filter, delete", async () => {
    // startOidcApp gives ada the role r1 (Board) as the CLI does.
    expect(await adaRoles()).toEqual([{ id: 'r1', name: 'Board' }]);
    const created = await send('POST', '/Groups', { schemas: [GROUP_SCHEMA], externalId: 'entra-committee', displayName: 'Committee', members: [] });
    expect(created).toMatchObject({ status: 201, body: { id: expect.any(String), externalId: 'entra-committee', displayName: 'Committee', meta: { resourceType: 'Group', version: 'W/"1"' } } });
    expect(created.body).not.toHaveProperty('members');
    const id = created.body.id as string;
    const found = await send('GET', `/Groups?filter=${encodeURIComponent('displayName eq "committee"')}&excludedAttributes=members`);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id, displayName: 'Committee' }] });

    expect((await patch(id, [{ op: 'Add', path: 'members', value: [{ value: REFERENCE.memberId }] }])).status).toBe(204);
    expect(await adaRoles()).toEqual([{ id: 'r1', name: 'Board' }, { id, name: 'Committee' }]);
    expect((await send('GET', `/Groups/${id}`)).body.members).toEqual([{ value: REFERENCE.memberId, display: 'ada', type: 'User', $ref: `${app.baseUrl}/scim/v2/Users/${REFERENCE.memberId}` }]);
    expect((await send('GET', `/Users/${REFERENCE.memberId}`)).body.groups).toEqual([{ value: 'r1', display: 'Board' }, { value: id, display: 'Committee' }]);

    expect((await patch(id, [{ op: 'Replace', path: 'displayName', value: 'Standing Committee' }])).status).toBe(204);
    expect(await adaRoles()).toEqual([{ id: 'r1', name: 'Board' }, { id, name: 'Standing Committee' }]);

    expect((await patch(id, [{ op: 'Remove', path: `members[value eq "${REFERENCE.memberId}"]` }])).status).toBe(204);
    expect(await adaRoles()).toEqual([{ id: 'r1', name: 'Board' }]);
    // Written at 1; each change of its members or name moves the version on: ada added, renamed (the Group, then ada), ada removed.
    expect((await send('GET', `/Groups/${id}`)).body).toMatchObject({ displayName: 'Standing Committee', meta: { version: 'W/"5"' } });

    expect((await patch(id, [{ op: 'Add', path: 'members', value: [{ value: REFERENCE.memberId }] }])).status).toBe(204);
    expect(await adaRoles()).toEqual([{ id: 'r1', name: 'Board' }, { id, name: 'Standing Committee' }]);
    expect((await send('DELETE', `/Groups/${id}`)).status).toBe(204);
    expect(await adaRoles()).toEqual([{ id: 'r1', name: 'Board' }]);
    expectScimError(await send('GET', `/Groups/${id}`), 404);

    // Besides the CLI's (startOidcApp's role): one per change of ada, by the client.
    const events = (await app.services.events.list({ memberId: REFERENCE.memberId })).filter((event) => event.type === 'member-changed' && event.actor.kind !== 'cli');
    expect(events).toHaveLength(5);
    for (const event of events) expect(event).toMatchObject({ actor: { kind: 'provisioning', id: 'entra' }, outcome: 'attributes' });
  });

  test("Okta's shapes: create with members, path-less replace of the name, remove and add by value lists, PUT the members whole", async () => {
    const grace = await app.services.members.add({ id: 'grace', username: 'grace', email: 'grace@example.org', firstName: 'Grace', lastName: 'Hopper' });
    const created = await send('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Chapter', members: [{ value: REFERENCE.memberId, display: 'ada' }] });
    const id = created.body.id as string;
    expect(created.body.members).toEqual([expect.objectContaining({ value: REFERENCE.memberId })]);
    expect(await adaRoles()).toEqual([{ id: 'r1', name: 'Board' }, { id, name: 'Chapter' }]);

    expect((await patch(id, [{ op: 'replace', value: { id, displayName: 'North Chapter' } }])).status).toBe(204);
    expect(await adaRoles()).toEqual([{ id: 'r1', name: 'Board' }, { id, name: 'North Chapter' }]);

    await patch(id, [
      { op: 'remove', path: 'members', value: [{ value: REFERENCE.memberId }] },
      { op: 'add', path: 'members', value: [{ value: grace.id }] },
    ]);
    expect(await adaRoles()).toEqual([{ id: 'r1', name: 'Board' }]);
    expect((await app.services.members.get(grace.id))?.attributes.roles).toEqual([{ id, name: 'North Chapter' }]);

    const put = await send('PUT', `/Groups/${id}`, { schemas: [GROUP_SCHEMA], displayName: 'North Chapter', members: [{ value: REFERENCE.memberId }] });
    expect(put).toMatchObject({ status: 200, body: { members: [expect.objectContaining({ value: REFERENCE.memberId })] } });
    expect(await adaRoles()).toEqual([{ id: 'r1', name: 'Board' }, { id, name: 'North Chapter' }]);
    expect((await app.services.members.get(grace.id))?.attributes.roles).toBeUndefined();
  });

  test('roles the CLI gives are Groups (version 0 until written here), filtered and taken over; bad writes are refused and change nothing', async () => {
    const listed = await send('GET', `/Groups?filter=${encodeURIComponent('id eq "r1" or displayName sw "Bo"')}`);
    expect(listed.body).toMatchObject({ totalResults: 1, Resources: [{ id: 'r1', displayName: 'Board', members: [{ value: REFERENCE.memberId }], meta: { version: 'W/"0"' } }] });
    expect((await patch('r1', [{ op: 'replace', path: 'displayName', value: 'Trustees' }])).status).toBe(204);
    expect(await adaRoles()).toEqual([{ id: 'r1', name: 'Trustees' }]);
    expect((await send('GET', '/Groups/r1')).body).toMatchObject({ displayName: 'Trustees', meta: { version: 'W/"2"', created: expect.any(String) } });
    // The CLI's way of giving roles keeps working on the same roles.
    await app.services.members.update(REFERENCE.memberId, { attributes: { roles: [{ id: 'r1', name: 'Trustees' }, { id: 'r9', name: 'Auditor' }] } });
    expect(((await send('GET', '/Groups')).body.Resources as Array<{ id: string }>).map((group) => group.id)).toEqual(['r9', 'r1']);

    expectScimError(await patch('r1', [{ op: 'add', path: 'members', value: [{ value: 'nobody' }] }]), 400, 'invalidValue');
    expectScimError(await patch('r1', [{ op: 'remove', path: 'displayName' }]), 400, 'mutability');
    expectScimError(await patch('r1', [{ op: 'add', path: 'owner', value: 'x' }]), 400, 'invalidPath');
    expectScimError(await send('POST', '/Groups', { displayName: '  ' }), 400, 'invalidValue');
    expectScimError(await send('GET', `/Groups?filter=${encodeURIComponent('members.value eq "x"')}`), 400, 'invalidFilter');
    expect(await adaRoles()).toEqual([{ id: 'r1', name: 'Trustees' }, { id: 'r9', name: 'Auditor' }]);
  });
}

describe('Groups on SQLite', () => suite('sqlite'));
describeWithPostgres('Groups on PostgreSQL', () => suite('postgres'));
