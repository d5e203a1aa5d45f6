/** Ctrl-C while a long command runs. */
export interface Interrupt {
  /** Aborts at the first Ctrl-C. */
  readonly signal: AbortSignal;
  /** Stops listening, which gives Ctrl-C back its default: end the process. */
  release(): void;
}

/**
 * The first Ctrl-C asks the command to stop (the signal aborts, and `onFirst` says so); a second one finds no
 * listener, so Node ends the process at once.
 */
export function listenForInterrupt(onFirst: () => void): Interrupt {
  const stop = new AbortController();
  const interrupt = () => {
    stop.abort();
    onFirst();
  };
  process.once('SIGINT', interrupt);
  return { signal: stop.signal, release: () => process.off('SIGINT', interrupt) };
}
