import { IMPORT_ACTOR } from '../events.js';
import type { MemberRow } from '../../store/store.js';
import type { FirstSeen } from '../first-seen.js';
import type { MemberService } from '../members.js';

/** A member the file does not list, disabled by the import (or to be, in a dry run). */
export interface MissingMember {
  id: string;
  username: string;
}

/** Members read at once: memory holds one page of members, whatever their number. */
const MEMBERS_PER_PAGE = 1000;

/**
 * The import's disableMissing option, once every row of the file is settled without a refusal: disables each
 * enabled member that no row listed, as `members disable` does (MemberService.setEnabled: its sessions stop
 * verifying at once). Members created after `since` (the import's start) are left: another admin added them
 * while the file was read. Nothing is written in a dry run. Returns how many.
 *
 * `listed` holds the ids, as stored, of the rows settled; it is a FirstSeen so that a million ids stay small.
 * The stored members are read a page at a time, in id order (MemberService.listAfter), never all at once.
 */
export async function disableMissing(
  listed: FirstSeen,
  members: MemberService,
  since: number,
  options: { dryRun: boolean; onDisabled?: (member: MissingMember) => void | Promise<void> },
): Promise<number> {
  let disabled = 0;
  let page: MemberRow[] = [];
  do {
    page = await members.listAfter(page.at(-1)?.id ?? '', MEMBERS_PER_PAGE);
    // firstLine records an id it has not seen: harmless here, where nothing is listed any more.
    const missing = page.filter((member) => member.enabled && member.createdAt <= since && listed.firstLine(member.id, 0) === undefined);
    for (const { id, username } of missing) {
      if (!options.dryRun) await members.setEnabled(id, false, IMPORT_ACTOR);
      await options.onDisabled?.({ id, username });
    }
    disabled += missing.length;
  } while (page.length === MEMBERS_PER_PAGE);
  return disabled;
}
