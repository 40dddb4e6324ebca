import type { PoolClient } from "pg";
import type { PgStateDb } from "../../db/pg-client.js";
import type {
  GuideProgrammes,
  ProgrammeInput,
  ProgrammeRow,
  ProgrammeWriter,
} from "./repository.js";

/** Programmes per INSERT: one statement of four arrays, whatever the count. */
const INSERT_BATCH_ROWS = 5_000;
/** Programme rows one purge statement deletes. */
const PURGE_BATCH_ROWS = 20_000;

// Raw SQL for the per-row paths: one INSERT of unnested arrays carries a
// whole piece of the document, and epg.xml reads rows without drizzle's
// per-row mapping. bigint comes back from node-postgres as a string.
const INSERT_PROGRAMMES = `INSERT INTO guide_programmes (source_id, generation, xmltv_id, start, stop, body)
  SELECT $1::text, $2::bigint, t.x, t.s, t.e, t.b FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::text[]) AS t(x, s, e, b)`;
const SELECT_PROGRAMMES = `SELECT xmltv_id, start, stop, body FROM guide_programmes
  WHERE source_id = $1 AND generation = $2 AND xmltv_id = ANY($3::text[]) ORDER BY xmltv_id, start`;
const PURGE_OLD = `DELETE FROM guide_programmes WHERE ctid = ANY (ARRAY(
  SELECT ctid FROM guide_programmes WHERE source_id = $1 AND generation < $2 AND generation IS DISTINCT FROM $3::bigint
  LIMIT ${PURGE_BATCH_ROWS}))`;
const PURGE_GENERATION = `DELETE FROM guide_programmes WHERE ctid = ANY (ARRAY(
  SELECT ctid FROM guide_programmes WHERE source_id = $1 AND generation = $2 LIMIT ${PURGE_BATCH_ROWS}))`;

const epochOf = (v: unknown): number | null => (v === null ? null : Number(v));

/**
 * The guide's programme rows on PostgreSQL (cluster mode): not mirrored (epg.xml reads
 * them in batches), so they bump nothing until the switch names their generation.
 */
export function postgresProgrammes(db: PgStateDb): GuideProgrammes {
  const pool = db.$client;
  let closed = false;

  async function deleteInBatches(text: string, values: unknown[]): Promise<void> {
    try {
      while (!closed && ((await pool.query(text, values)).rowCount ?? 0) > 0);
    } catch {
      // The pool closed under a background purge (shutdown): the rows of an
      // unused generation are deleted later (docs/guide.md "Refresh").
    }
  }

  return {
    async openProgrammeWriter(sourceId, generation) {
      // One connection for the whole import. Rows of a generation nobody reads
      // yet need no WAL flush of their own: the switch commits synchronously,
      // which flushes everything logged before it (the analogue of SQLite's
      // `synchronous = NORMAL` during an import).
      const conn: PoolClient = await pool.connect();
      try {
        await conn.query("SET synchronous_commit = off");
      } catch (err) {
        conn.release(err as Error);
        throw err;
      }
      let stored = 0;
      let released = false;
      const writer: ProgrammeWriter = {
        async write(parse) {
          const ids: string[] = [];
          const starts: number[] = [];
          const stops: (number | null)[] = [];
          const bodies: string[] = [];
          const value = parse((p: ProgrammeInput) => {
            ids.push(p.channel);
            starts.push(p.start);
            stops.push(p.stop);
            bodies.push(p.body);
          });
          for (let i = 0; i < ids.length; i += INSERT_BATCH_ROWS) {
            const end = i + INSERT_BATCH_ROWS;
            const r = await conn.query({
              // Named: parsed and planned once per connection.
              name: "svc_guide_insert_programmes",
              text: INSERT_PROGRAMMES,
              values: [
                sourceId,
                generation,
                ids.slice(i, end),
                starts.slice(i, end),
                stops.slice(i, end),
                bodies.slice(i, end),
              ],
            });
            stored += r.rowCount ?? 0;
          }
          return value;
        },
        get stored() {
          return stored;
        },
        async close() {
          if (released) return;
          released = true;
          try {
            await conn.query("RESET synchronous_commit");
            conn.release();
          } catch (err) {
            // A broken connection is not handed back to the pool.
            conn.release(err as Error);
          }
        },
      };
      return writer;
    },
    purge: (sourceId, below, keep) => deleteInBatches(PURGE_OLD, [sourceId, below, keep]),
    dropGeneration: (sourceId, generation) =>
      deleteInBatches(PURGE_GENERATION, [sourceId, generation]),
    async programmes(sourceId, generation, xmltvIds) {
      const out = new Map<string, ProgrammeRow[]>();
      if (xmltvIds.length === 0) return out;
      const r = await pool.query<[string, string, string | null, string]>({
        name: "svc_guide_select_programmes",
        text: SELECT_PROGRAMMES,
        values: [sourceId, generation, [...new Set(xmltvIds)]],
        rowMode: "array",
      });
      for (const [id, start, stop, body] of r.rows) {
        const row = { start: Number(start), stop: epochOf(stop), body };
        const list = out.get(id);
        if (list === undefined) out.set(id, [row]);
        else list.push(row);
      }
      for (const id of xmltvIds) if (!out.has(id)) out.set(id, []);
      return out;
    },
    close() {
      closed = true;
    },
  };
}
