/** The operator's whole-store jobs, as the CLI runs them: copy a store, back one up, check one. */
export { backupStore, type BackupReport } from './backup.js';
export { checkStore, type CheckReport, type StoreCheck } from './check.js';
export { copyStore, type CopiedTable, type CopyOptions, type CopyProgress, type CopyReport } from './copy.js';
export { configuredLocation, LOCATION_HELP, parseLocation, type StoreLocation } from './locations.js';
export { StoreJobRefusal } from './refusal.js';
