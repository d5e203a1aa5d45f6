import type { Command } from 'commander';
import type { CliIo } from './context.js';
import { warn } from './output.js';

/** "members set-password": the command's words after the program's name. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** The one-line notice of a former spelling that still works, on stderr: scripts parse stdout, which stays as it was. */
export function deprecated(io: CliIo, command: Command, former: string, current: string): void {
  const path = commandPath(command);
  warn(io, `"${path} ${former}" is deprecated; use "${path} ${current}"`);
}
