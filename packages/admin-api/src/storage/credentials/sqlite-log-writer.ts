import { getTableColumns, type Placeholder, sql } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import type { apiTokenAudit, playbackAccessLog } from "../../db/schema/index.js";

/** A usage log table: every column but the increasing `id` is written. */
type LogTable = typeof playbackAccessLog | typeof apiTokenAudit;

/** Rows per multi-row INSERT: 100 rows × at most 13 parameters, far below SQLite's parameter limit. */
const CHUNK = 100;

/**
 * Inserts usage records (access log, API-token audit) on the hot path of credential traffic. drizzle
 * writes the statement from the schema (a multi-row INSERT of placeholders
 * `{field}{row}`); it is prepared once on the better-sqlite3 connection and run
 * with positional values, because drizzle's own prepared `run` spent ~20 µs
 * per record mapping named placeholders (measured on the benchmark VM; this
 * path: ~5 µs). Full chunks go 100 rows at a time, the rest row by row.
 * Call inside a transaction.
 */
export function createLogWriter<Row extends object>(
  db: StateDb,
  table: LogTable,
): (rows: readonly Row[]) => void {
  const fields = Object.keys(getTableColumns(table)).filter((f) => f !== "id") as (keyof Row)[];
  const prepare = (rows: number) => {
    const query = db
      .insert(table as typeof playbackAccessLog)
      .values(
        Array.from({ length: rows }, (_, i) =>
          Object.fromEntries(fields.map((f) => [f, sql.placeholder(`${String(f)}:${i}`)])),
        ) as never,
      )
      .toSQL();
    // Where each positional parameter comes from: [row offset, field].
    // drizzle wraps each placeholder in a column-typed Param; these columns encode as-is.
    const slots = query.params.map((p) => {
      const name = (p as { value?: Placeholder }).value?.name;
      if (typeof name !== "string") throw new Error("usage log insert: unexpected parameter");
      const [field, row] = name.split(":") as [keyof Row, string];
      return [Number(row), field] as const;
    });
    return { stmt: db.$client.prepare(query.sql), slots };
  };
  const many = prepare(CHUNK);
  const one = prepare(1);
  const run = (target: typeof many, rows: readonly Row[], from: number) => {
    const values = new Array<unknown>(target.slots.length);
    for (let i = 0; i < values.length; i++) {
      const [row, field] = target.slots[i]!;
      values[i] = rows[from + row]![field];
    }
    target.stmt.run(values);
  };
  return (rows) => {
    let i = 0;
    for (; i + CHUNK <= rows.length; i += CHUNK) run(many, rows, i);
    for (; i < rows.length; i++) run(one, rows, i);
  };
}
