/**
 * The deployment setting `store copy` writes into its target before anything else and removes only once every
 * table's count and checksum matched its source's: a store holding it is a copy stopped half way (interrupted,
 * failed, or refused by its verification), which looks whole and is not. Nothing opens it for the service.
 */
export const UNFINISHED_COPY_SETTING = 'store_copy_in_progress';

/** The store is the target of a copy that has not finished. */
export class UnfinishedCopyError extends Error {
  constructor(database: string, marker: string) {
    super(
      `${database} holds a store copy that did not finish (${marker}): run store copy again to start it over, or keep using the source store`,
    );
    this.name = 'UnfinishedCopyError';
  }
}
