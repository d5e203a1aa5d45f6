import type { Command } from 'commander';

/** Commander discards what an action returns, so the exit code is kept per program run. */
const exitCodes = new WeakMap<Command, number>();

function rootOf(command: Command): Command {
  return command.parent ? rootOf(command.parent) : command;
}

/** Wraps an action that returns its exit code; errors propagate to the program's one handleError. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<number>) {
  return async function (this: Command, ...args: A): Promise<void> {
    exitCodes.set(rootOf(this), await fn(...args));
  };
}

export function exitCodeOf(program: Command): number {
  return exitCodes.get(program) ?? 0;
}
