/** Milliseconds since the epoch; injected so that tests control time. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
