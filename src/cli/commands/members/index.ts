import { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { simpleCommand } from '../../simple-command.js';
import { addCommand } from './add.js';
import { importCommand } from './import.js';
import { listCommand } from './list.js';
import { MEMBER_ID } from './member-id.js';
import { mfaCommand } from './mfa.js';
import { recoveryLinkCommand } from './recovery-link.js';
import { setPasswordCommand } from './set-password.js';
import { showCommand } from './show.js';
import { updateCommand } from './update.js';

export function membersCommand(ctx: CliContext): Command {
  return new Command('members')
    .description('manage the members that sessions sign in')
    .addCommand(addCommand(ctx))
    .addCommand(updateCommand(ctx))
    .addCommand(listCommand(ctx))
    .addCommand(showCommand(ctx))
    .addCommand(setPasswordCommand(ctx))
    .addCommand(mfaCommand(ctx))
    .addCommand(recoveryLinkCommand(ctx))
    .addCommand(importCommand(ctx))
    .addCommand(
      simpleCommand(ctx, {
        record: MEMBER_ID,
        verb: 'disable',
        description: "stop the member's sessions from verifying until enabled again",
        run: async (s, id) => {
          await s.members.setEnabled(id, false);
          return { message: `Member ${id} disabled.`, record: { id, enabled: false } };
        },
      }),
    )
    .addCommand(
      simpleCommand(ctx, {
        record: MEMBER_ID,
        verb: 'enable',
        description: "let the member's sessions verify again",
        run: async (s, id) => {
          await s.members.setEnabled(id, true);
          return { message: `Member ${id} enabled.`, record: { id, enabled: true } };
        },
      }),
    )
    .addCommand(
      simpleCommand(ctx, {
        record: MEMBER_ID,
        verb: 'remove',
        description: 'delete the member and all of its sessions',
        run: async (s, id) => {
          await s.members.remove(id);
          return { message: `Member ${id} and its sessions removed.`, record: { id, removed: true } };
        },
      }),
    );
}
