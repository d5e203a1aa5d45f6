/** The seed when TEST_SEED is not set: every run draws the same inputs as the last. */
const DEFAULT_SEED = 35;

function seedFrom(text: string | undefined): number {
  if (text === undefined || text === '') return DEFAULT_SEED;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`TEST_SEED must be an integer, not "${text}"`);
  return seed | 0;
}

/**
 * The seed of a test run's random choices (fast-check's properties, the soak's traffic): TEST_SEED, or a fixed
 * one, so that a run repeats exactly and a failure replays with the seed its report names. Another TEST_SEED
 * draws other inputs.
 */
export const TEST_SEED = seedFrom(process.env.TEST_SEED);
