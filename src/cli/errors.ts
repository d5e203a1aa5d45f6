/**
 * Failures a command finds itself, rather than the service: handleError prints their message as it is and
 * exits with their kind's code, as it does for the service's errors.
 */
export class CommandError extends Error {}

/** What the command names is not there (an origin the caller has not registered, a second factor to remove). */
export class NotFoundError extends CommandError {}
