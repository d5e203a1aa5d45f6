import type { FirstSeen } from '../first-seen.js';
import type { MemberService } from '../members.js';

/** A member the file does not list, disabled by the import (or to be, in a dry run). */
export interface MissingMember {
  id: string;
  username: string;
}

/**
 * The import's disableMissing option, once every row of the file is settled without a refusal: disables each
 * enabled member that no row listed, as `members disable` does (MemberService.setEnabled: its sessions stop
 * verifying at once). Members created after `since` (the import's start) are left: another admin added them
 * while the file was read. Nothing is written in a dry run. Returns how many.
 *
 * `listed` holds the ids, as stored, of the rows settled; it is a FirstSeen so that a million ids stay small.
 */
export async function disableMissing(
  listed: FirstSeen,
  members: MemberService,
  since: number,
  options: { dryRun: boolean; onDisabled?: (member: MissingMember) => void | Promise<void> },
): Promise<number> {
  // firstLine records an id it has not seen: harmless here, where nothing is listed any more.
  const missing = (await members.list())
    .filter((member) => member.enabled && member.createdAt <= since && listed.firstLine(member.id, 0) === undefined)
    .map(({ id, username }) => ({ id, username }));
  for (const member of missing) {
    if (!options.dryRun) await members.setEnabled(member.id, false);
    await options.onDisabled?.(member);
  }
  return missing.length;
}
