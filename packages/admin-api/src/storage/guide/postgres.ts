import { and, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { PoolClient } from "pg";
import type { PgStateDb, PgTx } from "../../db/pg-client.js";
import { guideChannels, guideSourceStatus, guideSources } from "../../db/schema-pg/index.js";
import { bumpVersion } from "../postgres/versions.js";
import type {
  GuideRepository,
  ProgrammeInput,
  ProgrammeRow,
  ProgrammeWriter,
  SourceStatusRow,
} from "./repository.js";

/** Programmes per INSERT: one statement of four arrays, whatever the count. */
const INSERT_BATCH_ROWS = 5_000;
/** Guide channels per INSERT of a switch (5 parameters each, far below 65,535). */
const CHANNEL_BATCH_ROWS = 1_000;
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

type StatusRecord = typeof guideSourceStatus.$inferSelect;
const toStatus = (r: StatusRecord): SourceStatusRow => ({ ...r, metadata: r.metadata ?? {} });
const epochOf = (v: unknown): number | null => (v === null ? null : Number(v));

/**
 * The guide on PostgreSQL (cluster mode). Writes of what the instances mirror
 * bump the "guide" version in their own transaction, so the other instances
 * reload it; programme rows are not mirrored (epg.xml reads them in batches)
 * and bump nothing until the switch names their generation.
 */
export function createPgGuideRepository(db: PgStateDb): GuideRepository {
  const pool = db.$client;
  let closed = false;

  /** Runs a mirrored write; the version is bumped only when `changed` says it wrote. */
  const mirrored = <T>(work: (tx: PgTx) => Promise<T>, changed: (result: T) => boolean) =>
    db.transaction(async (tx) => {
      const result = await work(tx);
      if (changed(result)) await bumpVersion(tx, "guide");
      return result;
    });
  const wrote = <T>(rows: readonly T[]) => rows.length > 0;

  async function deleteInBatches(text: string, values: unknown[]): Promise<void> {
    try {
      while (!closed && ((await pool.query(text, values)).rowCount ?? 0) > 0);
    } catch {
      // The pool closed under a background purge (shutdown): the rows of an
      // unused generation are deleted later (docs/guide.md "Refresh").
    }
  }

  const updateStatus = (sourceId: string, set: Partial<StatusRecord>) =>
    mirrored(
      (tx) =>
        tx
          .update(guideSourceStatus)
          .set(set)
          .where(eq(guideSourceStatus.sourceId, sourceId))
          .returning(),
      wrote,
    ).then((rows) => (rows[0] === undefined ? undefined : toStatus(rows[0])));

  return {
    async sources() {
      return db.select().from(guideSources);
    },
    async saveSource(row, expected) {
      const rows = await mirrored(
        (tx) =>
          expected === undefined
            ? tx
                .insert(guideSources)
                .values(row)
                .onConflictDoNothing()
                .returning({ id: guideSources.id })
            : tx
                .update(guideSources)
                .set(row)
                .where(and(eq(guideSources.id, row.id), eq(guideSources.revision, expected)))
                .returning({ id: guideSources.id }),
        wrote,
      );
      return rows.length === 1;
    },
    async deleteSource(id, expected) {
      const rows = await mirrored(
        (tx) =>
          tx
            .delete(guideSources)
            .where(and(eq(guideSources.id, id), eq(guideSources.revision, expected)))
            .returning({ id: guideSources.id }),
        wrote,
      );
      return rows.length === 1;
    },

    async statuses() {
      return (await db.select().from(guideSourceStatus)).map(toStatus);
    },
    async claim(sourceId, attempt, dueBefore) {
      const rows = await mirrored(
        (tx) =>
          tx
            .insert(guideSourceStatus)
            .values({ sourceId, lastAttempt: attempt, metadata: {} })
            .onConflictDoUpdate({
              target: guideSourceStatus.sourceId,
              set: { lastAttempt: attempt },
              ...(dueBefore === null
                ? {}
                : {
                    setWhere: or(
                      isNull(guideSourceStatus.lastAttempt),
                      lte(guideSourceStatus.lastAttempt, dueBefore),
                    ),
                  }),
            })
            .returning(),
        wrote,
      );
      return rows[0] === undefined ? undefined : toStatus(rows[0]);
    },
    async recordFailure(sourceId, attempt, error) {
      const rows = await mirrored(
        (tx) =>
          tx
            .insert(guideSourceStatus)
            .values({ sourceId, lastAttempt: attempt, error, metadata: {} })
            .onConflictDoUpdate({
              target: guideSourceStatus.sourceId,
              set: {
                lastAttempt: attempt,
                error,
                stale: sql`${guideSourceStatus.generation} IS NOT NULL`,
              },
            })
            .returning(),
        wrote,
      );
      return toStatus(rows[0]!);
    },
    recordNotModified: (sourceId, attempt, metadata) =>
      updateStatus(sourceId, {
        lastAttempt: attempt,
        lastSuccess: attempt,
        stale: false,
        error: null,
        metadata,
      }),
    clearValidators: (sourceId) => updateStatus(sourceId, { etag: null, lastModified: null }),

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
    async switchGeneration(channels, status) {
      const { sourceId, generation } = status;
      const rows = await mirrored(async (tx) => {
        // Compare-and-set first: the upsert locks the status row, so two
        // switches of one source serialise and only a newer generation wins.
        const switched = await tx
          .insert(guideSourceStatus)
          .values(status)
          .onConflictDoUpdate({
            target: guideSourceStatus.sourceId,
            set: status,
            setWhere: or(
              isNull(guideSourceStatus.generation),
              lt(guideSourceStatus.generation, generation),
            ),
          })
          .returning();
        if (switched.length === 0) return switched;
        await tx
          .update(guideChannels)
          .set({ present: false })
          .where(eq(guideChannels.sourceId, sourceId));
        for (let i = 0; i < channels.length; i += CHANNEL_BATCH_ROWS) {
          await tx
            .insert(guideChannels)
            .values(
              channels.slice(i, i + CHANNEL_BATCH_ROWS).map((c) => ({
                sourceId,
                xmltvId: c.id,
                displayNames: [...c.displayNames],
                icon: c.icon,
                present: true,
              })),
            )
            .onConflictDoUpdate({
              target: [guideChannels.sourceId, guideChannels.xmltvId],
              set: {
                displayNames: sql`excluded.display_names`,
                icon: sql`excluded.icon`,
                present: true,
              },
            });
        }
        return switched;
      }, wrote);
      return rows[0] === undefined ? undefined : toStatus(rows[0]);
    },
    async forget(sourceId) {
      await mirrored(
        async (tx) => {
          await tx.delete(guideChannels).where(eq(guideChannels.sourceId, sourceId));
          await tx.delete(guideSourceStatus).where(eq(guideSourceStatus.sourceId, sourceId));
          return true;
        },
        () => true,
      );
    },
    purge: (sourceId, below, keep) => deleteInBatches(PURGE_OLD, [sourceId, below, keep]),
    dropGeneration: (sourceId, generation) =>
      deleteInBatches(PURGE_GENERATION, [sourceId, generation]),
    async sourcesWithProgrammes() {
      const r = await pool.query<{ source_id: string }>(
        "SELECT DISTINCT source_id FROM guide_programmes",
      );
      return r.rows.map((row) => row.source_id);
    },

    async channels(sourceIds) {
      if (sourceIds.length === 0) return [];
      const rows = await db
        .select()
        .from(guideChannels)
        .where(inArray(guideChannels.sourceId, [...sourceIds]));
      return rows.map((r) => ({
        sourceId: r.sourceId,
        xmltvId: r.xmltvId,
        displayNames: r.displayNames,
        icon: r.icon,
        present: r.present,
      }));
    },
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
