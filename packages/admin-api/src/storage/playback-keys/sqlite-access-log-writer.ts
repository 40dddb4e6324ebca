import { type Placeholder, sql } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { playbackAccessLog } from "../../db/schema/index.js";
import type { AccessEntry } from "./repository.js";

type Field = keyof AccessEntry;
const FIELDS: readonly Field[] = [
  "tokenId",
  "tokenPrefix",
  "path",
  "channelId",
  "status",
  "remote",
  "createdAt",
];

/** Rows per multi-row INSERT: 100 rows × 7 parameters, far below SQLite's parameter limit. */
const CHUNK = 100;

/**
 * Inserts access records on the hot path of playback-key traffic. drizzle
 * writes the statement from the schema (a multi-row INSERT of placeholders
 * `{field}{row}`); it is prepared once on the better-sqlite3 connection and run
 * with positional values, because drizzle's own prepared `run` spent ~20 µs
 * per record mapping named placeholders (measured on the benchmark VM; this
 * path: ~5 µs). Full chunks go 100 rows at a time, the rest row by row.
 * Call inside a transaction.
 */
export function createAccessLogWriter(db: StateDb): (rows: readonly AccessEntry[]) => void {
  const prepare = (rows: number) => {
    const query = db
      .insert(playbackAccessLog)
      .values(
        Array.from({ length: rows }, (_, i) =>
          Object.fromEntries(FIELDS.map((f) => [f, sql.placeholder(`${f}:${i}`)])),
        ) as unknown as (typeof playbackAccessLog.$inferInsert)[],
      )
      .toSQL();
    // Where each positional parameter comes from: [row offset, field].
    // drizzle wraps each placeholder in a column-typed Param; these columns encode as-is.
    const slots = query.params.map((p) => {
      const name = (p as { value?: Placeholder }).value?.name;
      if (typeof name !== "string") throw new Error("access log insert: unexpected parameter");
      const [field, row] = name.split(":") as [Field, string];
      return [Number(row), field] as const;
    });
    return { stmt: db.$client.prepare(query.sql), slots };
  };
  const many = prepare(CHUNK);
  const one = prepare(1);
  const run = (target: typeof many, rows: readonly AccessEntry[], from: number) => {
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
