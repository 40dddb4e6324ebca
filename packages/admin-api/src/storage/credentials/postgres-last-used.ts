import { sql } from "drizzle-orm";
import type { PgTx } from "../../db/pg-client.js";

/**
 * Moves `last_used_at` of many credentials forward (never back) inside a usage
 * batch's transaction, with no version bump: usage times are not part of the
 * mirrors' identity. The rows are locked in id order first, so two instances'
 * batches touching the same credentials wait for each other instead of
 * deadlocking; the values travel as one JSON parameter, whatever the count.
 */
export async function moveLastUsed(
  tx: PgTx,
  table: "api_tokens" | "playback_keys",
  used: ReadonlyMap<string, number>,
): Promise<void> {
  if (used.size === 0) return;
  const t = sql.identifier(table);
  const values = JSON.stringify([...used].map(([id, at]) => ({ id, at })));
  const rows = sql`jsonb_to_recordset(${values}::jsonb) AS u(id text, at bigint)`;
  await tx.execute(
    sql`SELECT c.id FROM ${t} c JOIN ${rows} ON c.id = u.id ORDER BY c.id FOR UPDATE OF c`,
  );
  await tx.execute(
    sql`UPDATE ${t} c SET last_used_at = GREATEST(COALESCE(c.last_used_at, 0), u.at) FROM ${rows} WHERE c.id = u.id`,
  );
}
