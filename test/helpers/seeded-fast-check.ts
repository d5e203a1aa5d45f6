import fc from 'fast-check';
import { TEST_SEED } from './test-seed.js';

/**
 * fast-check with every property of the importing test file drawing from the run's seed (test/helpers/test-seed.ts),
 * so that a run is repeatable and its inputs never depend on the moment. A failing property's report gives the
 * seed and the path of its counterexample.
 */
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: TEST_SEED });

export { fc };
