import type { SqlDriver, SqlRunner } from './driver.js';

/** Where a bulk insert writes: the table, its columns (comma-separated) and what follows the VALUES, if anything. */
export interface InsertTarget {
  table: string;
  columns: string;
  suffix?: string;
}

/** An insert of `rows` rows in one statement, their values numbered row after row in the order of the columns. */
export function insertSql(target: InsertTarget, rows: number): string {
  const count = target.columns.split(', ').length;
  const tuples = Array.from({ length: rows }, (_, row) => {
    const placeholders = Array.from({ length: count }, (_, column) => `$${row * count + column + 1}`);
    return `(${placeholders.join(', ')})`;
  });
  return `INSERT INTO ${target.table} (${target.columns}) VALUES ${tuples.join(', ')}${target.suffix ?? ''}`;
}

/**
 * Inserts the rows (each its values in the order of the columns) on `runner`, as many per statement as the
 * driver takes: a statement text serves every full statement, one more the last.
 */
export async function insertRows(driver: SqlDriver, runner: SqlRunner, target: InsertTarget, rows: ReadonlyArray<readonly unknown[]>): Promise<void> {
  const perStatement = driver.rowsPerInsert(target.columns.split(', ').length);
  let sql = '';
  let sqlRows = 0;
  for (let start = 0; start < rows.length; start += perStatement) {
    const statementRows = rows.slice(start, start + perStatement);
    if (statementRows.length !== sqlRows) {
      sqlRows = statementRows.length;
      sql = insertSql(target, sqlRows);
    }
    await runner.changes(sql, statementRows.flat());
  }
}
