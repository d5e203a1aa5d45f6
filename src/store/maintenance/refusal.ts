/**
 * A whole-store job (copy, backup, check) refused what it was given, or stopped, for a reason the operator can
 * act on: its message says what and what to do, and holds no credential. The CLI prints it as it is.
 */
export class StoreJobRefusal extends Error {
  override name = 'StoreJobRefusal';
}
