import type { Table } from './database.js';
import { StoreJobRefusal } from './refusal.js';

/**
 * The tables in an order where each comes after every table its foreign keys refer to (by name, for a stable
 * order), so that rows are inserted after the rows they refer to and deleted before them.
 */
export function referencedFirst(tables: readonly Table[]): Table[] {
  const ordered: Table[] = [];
  const placed = new Set<string>();
  const names = new Set(tables.map((table) => table.name));
  let pending = [...tables].sort((a, b) => (a.name < b.name ? -1 : 1));
  while (pending.length > 0) {
    const ready = pending.filter((table) => table.references.every((name) => placed.has(name) || !names.has(name)));
    if (ready.length === 0) throw new StoreJobRefusal(`the tables ${pending.map((table) => table.name).join(', ')} refer to each other: they cannot be copied one after the other`);
    for (const table of ready) {
      ordered.push(table);
      placed.add(table.name);
    }
    pending = pending.filter((table) => !placed.has(table.name));
  }
  return ordered;
}

/** The tables that refer to these, directly or through others, these included: what goes when they go. */
export function withDependents(tables: readonly Table[], roots: readonly string[]): Set<string> {
  const found = new Set(roots.filter((name) => tables.some((table) => table.name === name)));
  for (let grew = true; grew; ) {
    grew = false;
    for (const table of tables) {
      if (!found.has(table.name) && table.references.some((name) => found.has(name))) {
        found.add(table.name);
        grew = true;
      }
    }
  }
  return found;
}
