/** Where the staff console answers: outside BASE_PATH, as the sign-in pages. */
export const ADMIN_PATH = '/Admin';

/** The console's pages and its one form target, below ADMIN_PATH. */
export const ADMIN_PATHS = {
  search: ADMIN_PATH,
  member: `${ADMIN_PATH}/member`,
  confirm: `${ADMIN_PATH}/confirm`,
  action: `${ADMIN_PATH}/action`,
  manage: `${ADMIN_PATH}/manage`,
  manageConfirm: `${ADMIN_PATH}/manage/confirm`,
  manageAction: `${ADMIN_PATH}/manage/action`,
  /** An OpenID client's or a SAML SP's form (`?kind=`), its confirmation and its POST. */
  addSite: `${ADMIN_PATH}/manage/add`,
} as const;

/** A member's page, saying what was just done or what went wrong (`done`, `problem`: fixed keys). */
export function memberHref(memberId: string, outcome: { done?: string; problem?: string } = {}): string {
  const query = new URLSearchParams({ id: memberId, ...outcome });
  return `${ADMIN_PATHS.member}?${query}`;
}
