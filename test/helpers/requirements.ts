import { existsSync } from 'node:fs';

/**
 * Tests that need something from outside the project (Chromium, nginx, systemd-analyze, a PostgreSQL server)
 * run where it is there. Where it is missing, CI (CI=true) fails loudly with one test that says what is missing
 * instead of skipping them; a developer's machine skips them with a warning.
 */

/** Something tests need from the machine, and why it is not there (undefined: it is). */
export interface Requirement {
  /** As the test that fails under CI names it: "Chromium". */
  what: string;
  missing: string | undefined;
}

/** A program at a fixed path; `install` says how to get it. */
export function program(what: string, path: string, install: string): Requirement {
  return { what, missing: existsSync(path) ? undefined : `${path} is missing (${install})` };
}

/**
 * Whether tests that need `requirements` can run. Where something is missing, it registers in their stead a test
 * that fails under CI, or warns that `name` is skipped.
 */
function available(requirements: readonly Requirement[], name: string): boolean {
  const missing = requirements.flatMap((requirement) => (requirement.missing === undefined ? [] : [requirement.missing]));
  if (missing.length === 0) return true;
  const what = requirements.map((requirement) => requirement.what).join(' and ');
  if (process.env.CI) {
    test(`${name}: needs ${what}`, () => {
      throw new Error(`${missing.join('; ')}: CI must provide ${what}`);
    });
  } else {
    console.warn(`skipping "${name}": ${missing.join('; ')}`);
  }
  return false;
}

/** describe() for a suite that needs all of `requirements`. */
export function describeRequiring(requirements: readonly Requirement[], name: string, suite: () => void): void {
  if (available(requirements, name)) describe(name, suite);
  else if (!process.env.CI) describe.skip(name, suite);
}

/** test() for a test that needs all of `requirements`. */
export function testRequiring(requirements: readonly Requirement[], name: string, fn: jest.ProvidesCallback): void {
  if (available(requirements, name)) test(name, fn);
  else if (!process.env.CI) test.skip(name, fn);
}
