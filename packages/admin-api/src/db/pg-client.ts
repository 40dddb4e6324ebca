import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { Pool } from "pg";
import type * as pgSchema from "./schema-pg/index.js";

/** The drizzle handle of the PostgreSQL state database; `$client` is the pg pool underneath. */
export type PgStateDb = NodePgDatabase<typeof pgSchema> & { $client: Pool };

/** A PostgreSQL transaction handle as drizzle's `db.transaction(async (tx) => …)` passes it. */
export type PgTx = Parameters<Parameters<PgStateDb["transaction"]>[0]>[0];
