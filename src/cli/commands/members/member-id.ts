import type { RecordArgument } from '../../record-argument.js';

/** The member a command acts on: `members show 10042`. */
export const MEMBER_ID: RecordArgument = { name: 'id', description: 'member id' };

/** The same, for the commands that took it as `--id ID` before (set-password, mfa status, mfa reset). */
export const MEMBER_ID_FORMERLY_OPTION: RecordArgument = { ...MEMBER_ID, former: '--id' };
