import { and, eq, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { guideSourceStatus, guideSources } from "../../db/schema/index.js";
import type {
  GuideRepository,
  ProgrammeInput,
  ProgrammeRow,
  ProgrammeWriter,
  SourceStatusRow,
} from "./repository.js";

/** Programme rows one purge statement deletes before yielding to the event loop. */
const PURGE_BATCH_ROWS = 20_000;

type StatusRecord = typeof guideSourceStatus.$inferSelect;
const toStatus = (r: StatusRecord): SourceStatusRow => ({ ...r, metadata: r.metadata ?? {} });

/**
 * The guide on the embedded SQLite file. The hot paths — millions of programme
 * inserts per refresh, one read per channel of epg.xml — use prepared
 * better-sqlite3 statements: drizzle's query builder costs more per row than
 * SQLite itself at that volume. better-sqlite3 is synchronous: every method
 * does its whole work before its promise is returned.
 */
export function createSqliteGuideRepository(db: StateDb): GuideRepository {
  const client = db.$client;
  const insertProgramme = client.prepare(
    "INSERT INTO guide_programmes (source_id, generation, xmltv_id, start, stop, body) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const importTransaction = client.transaction((work: () => unknown) => work());
  const selectProgrammes = client.prepare(
    "SELECT start, stop, body FROM guide_programmes WHERE source_id = ? AND generation = ? AND xmltv_id = ? ORDER BY start, rowid",
  );
  const clearPresent = client.prepare("UPDATE guide_channels SET present = 0 WHERE source_id = ?");
  const upsertChannel = client.prepare(
    `INSERT INTO guide_channels (source_id, xmltv_id, display_names, icon, present) VALUES (?, ?, ?, ?, 1)
     ON CONFLICT (source_id, xmltv_id) DO UPDATE SET display_names = excluded.display_names, icon = excluded.icon, present = 1`,
  );
  const deleteOldBatch = client.prepare(
    `DELETE FROM guide_programmes WHERE rowid IN (SELECT rowid FROM guide_programmes WHERE source_id = ? AND generation < ? AND generation IS NOT ? LIMIT ${PURGE_BATCH_ROWS})`,
  );
  const deleteGenerationBatch = client.prepare(
    `DELETE FROM guide_programmes WHERE rowid IN (SELECT rowid FROM guide_programmes WHERE source_id = ? AND generation = ? LIMIT ${PURGE_BATCH_ROWS})`,
  );
  let closed = false;

  /** Runs batched deletes until one deletes nothing, one batch per turn of the event loop. */
  async function deleteInBatches(batch: () => number): Promise<void> {
    try {
      while (!closed && batch() > 0) await new Promise((resolve) => setImmediate(resolve));
    } catch {
      // The database closed under a background purge (shutdown): the rows of an
      // unused generation are deleted later (docs/guide.md "Refresh").
    }
  }

  const updateStatus = (sourceId: string, set: Partial<StatusRecord>) =>
    db
      .update(guideSourceStatus)
      .set(set)
      .where(eq(guideSourceStatus.sourceId, sourceId))
      .returning()
      .get();

  return {
    async sources() {
      return db.select().from(guideSources).all();
    },
    async saveSource(row, expected) {
      if (expected === undefined)
        return db.insert(guideSources).values(row).onConflictDoNothing().run().changes === 1;
      return (
        db
          .update(guideSources)
          .set(row)
          .where(and(eq(guideSources.id, row.id), eq(guideSources.revision, expected)))
          .run().changes === 1
      );
    },
    async deleteSource(id, expected) {
      return (
        db
          .delete(guideSources)
          .where(and(eq(guideSources.id, id), eq(guideSources.revision, expected)))
          .run().changes === 1
      );
    },

    async statuses() {
      return db.select().from(guideSourceStatus).all().map(toStatus);
    },
    async claim(sourceId, attempt, dueBefore) {
      const row = db
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
        .returning()
        .get();
      return row === undefined ? undefined : toStatus(row);
    },
    async recordFailure(sourceId, attempt, error) {
      const row = db
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
        .returning()
        .get();
      return toStatus(row);
    },
    async recordNotModified(sourceId, attempt, metadata) {
      const row = updateStatus(sourceId, {
        lastAttempt: attempt,
        lastSuccess: attempt,
        stale: false,
        error: null,
        metadata,
      });
      return row === undefined ? undefined : toStatus(row);
    },
    async clearValidators(sourceId) {
      const row = updateStatus(sourceId, { etag: null, lastModified: null });
      return row === undefined ? undefined : toStatus(row);
    },

    async openProgrammeWriter(sourceId, generation) {
      let stored = 0;
      const insert = (p: ProgrammeInput) => {
        stored += insertProgramme.run(
          sourceId,
          generation,
          p.channel,
          p.start,
          p.stop,
          p.body,
        ).changes;
      };
      const writer: ProgrammeWriter = {
        async write(parse) {
          // Rows of a generation nobody reads yet need no fsync of their own: WAL
          // keeps the file consistent, and the switch (synchronous = FULL) makes
          // them durable. better-sqlite3 is synchronous, so no other write runs
          // while the pragma is relaxed. WAL checkpoints run on the state
          // database's checkpoint worker (db/checkpoint.ts), not in this commit.
          client.pragma("synchronous = NORMAL");
          try {
            return importTransaction(() => parse(insert)) as ReturnType<typeof parse>;
          } finally {
            client.pragma("synchronous = FULL");
          }
        },
        get stored() {
          return stored;
        },
        async close() {},
      };
      return writer;
    },
    async switchGeneration(channels, status) {
      return client.transaction(() => {
        const { sourceId, generation } = status;
        // Compare-and-set: only a newer generation replaces the stored one.
        const row = db
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
          .returning()
          .get();
        if (row === undefined) return undefined;
        clearPresent.run(sourceId);
        for (const c of channels)
          upsertChannel.run(sourceId, c.id, JSON.stringify(c.displayNames), c.icon);
        return toStatus(row);
      })();
    },
    async forget(sourceId) {
      client.transaction(() => {
        client.prepare("DELETE FROM guide_channels WHERE source_id = ?").run(sourceId);
        client.prepare("DELETE FROM guide_source_status WHERE source_id = ?").run(sourceId);
      })();
    },
    purge: (sourceId, below, keep) =>
      deleteInBatches(() => deleteOldBatch.run(sourceId, below, keep).changes),
    dropGeneration: (sourceId, generation) =>
      deleteInBatches(() => deleteGenerationBatch.run(sourceId, generation).changes),
    async sourcesWithProgrammes() {
      return (
        client.prepare("SELECT DISTINCT source_id FROM guide_programmes").all() as {
          source_id: string;
        }[]
      ).map((r) => r.source_id);
    },

    async channels(sourceIds) {
      if (sourceIds.length === 0) return [];
      const rows = client
        .prepare(
          `SELECT source_id, xmltv_id, display_names, icon, present FROM guide_channels WHERE source_id IN (${sourceIds.map(() => "?").join(",")})`,
        )
        .all(...sourceIds) as Record<string, unknown>[];
      return rows.map((r) => ({
        sourceId: r.source_id as string,
        xmltvId: r.xmltv_id as string,
        displayNames: JSON.parse(r.display_names as string) as string[],
        icon: r.icon as string,
        present: r.present === 1,
      }));
    },
    async programmes(sourceId, generation, xmltvIds) {
      const out = new Map<string, ProgrammeRow[]>();
      for (const id of xmltvIds)
        if (!out.has(id))
          out.set(id, selectProgrammes.all(sourceId, generation, id) as ProgrammeRow[]);
      return out;
    },
    close() {
      closed = true;
    },
  };
}
