import type { MemberCredentials, Store } from '../store/store.js';

/**
 * The member a login (username or email, as typed and trimmed) names: a username match wins; an email shared by
 * two members names neither (treated as unknown). Sign-in and password recovery find members alike.
 */
export async function memberByLogin(store: Store, login: string): Promise<MemberCredentials | null> {
  if (!login) return null;
  const [first, second] = await store.findMembersByLogin(login);
  if (!first) return null;
  if (first.member.username.toLowerCase() === login.toLowerCase() || !second) return first;
  return null;
}
