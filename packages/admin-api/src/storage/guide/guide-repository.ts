import { and, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { type Dialect, type Tables, wroteRows } from "../dialect/dialect.js";
import { postgresProgrammes } from "./postgres.js";
import type { GuideRepository, SourceStatusRow } from "./repository.js";
import { sqliteGuideChannels, sqliteProgrammes } from "./sqlite.js";

/** Guide channels per INSERT of a switch on PostgreSQL (5 parameters each, far below its limit). */
const CHANNEL_BATCH_ROWS = 1_000;

type StatusRecord = Tables["guideSourceStatus"]["$inferSelect"];
const toStatus = (r: StatusRecord): SourceStatusRow => ({ ...r, metadata: r.metadata ?? {} });
const firstStatus = (rows: StatusRecord[]) =>
  rows[0] === undefined ? undefined : toStatus(rows[0]);

/**
 * The guide's tables. What the instances mirror (sources, statuses, the switch to a
 * generation) is written once here, each write bumping the "guide" version on PostgreSQL
 * when it changed a row. The programme rows are the guide's hot path (millions of inserts a
 * refresh, one read per channel batch of epg.xml) and are written per database
 * (`sqlite.ts`, `postgres.ts`): prepared better-sqlite3 statements in one synchronous
 * transaction there, multi-row `unnest` inserts and `ctid` batch deletes here; drizzle's
 * builder would cost more per row than either database does.
 */
export function createGuideRepository(d: Dialect): GuideRepository {
  const { guideChannels, guideSourceStatus, guideSources, guideProgrammes } = d.tables;
  const programmes = d.kind === "sqlite" ? sqliteProgrammes(d.sqlite) : postgresProgrammes(d.pg);
  const sqliteChannels = d.kind === "sqlite" ? sqliteGuideChannels(d.sqlite) : undefined;

  const updateStatus = async (sourceId: string, set: Partial<StatusRecord>) =>
    firstStatus(
      await d.write(
        "guide",
        (tx) =>
          tx
            .update(guideSourceStatus)
            .set(set)
            .where(eq(guideSourceStatus.sourceId, sourceId))
            .returning(),
        wroteRows,
      ),
    );
  /** Inserts the status, or updates it where `setWhere` holds (all of it when undefined). */
  const upsertStatus = async (
    values: typeof guideSourceStatus.$inferInsert,
    set: PgUpdateSetSource<typeof guideSourceStatus>,
    setWhere: ReturnType<typeof or>,
  ) =>
    firstStatus(
      await d.write(
        "guide",
        (tx) =>
          tx
            .insert(guideSourceStatus)
            .values(values)
            .onConflictDoUpdate({
              target: guideSourceStatus.sourceId,
              set,
              ...(setWhere === undefined ? {} : { setWhere }),
            })
            .returning(),
        wroteRows,
      ),
    );

  return {
    ...programmes,
    sources: () => d.db.select().from(guideSources),
    async saveSource(row, expected) {
      const rows = await d.write(
        "guide",
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
        wroteRows,
      );
      return rows.length === 1;
    },
    async deleteSource(id, expected) {
      const rows = await d.write(
        "guide",
        (tx) =>
          tx
            .delete(guideSources)
            .where(and(eq(guideSources.id, id), eq(guideSources.revision, expected)))
            .returning({ id: guideSources.id }),
        wroteRows,
      );
      return rows.length === 1;
    },

    statuses: async () => (await d.db.select().from(guideSourceStatus)).map(toStatus),
    claim: (sourceId, attempt, dueBefore) =>
      upsertStatus(
        { sourceId, lastAttempt: attempt, metadata: {} },
        { lastAttempt: attempt },
        dueBefore === null
          ? undefined
          : or(
              isNull(guideSourceStatus.lastAttempt),
              lte(guideSourceStatus.lastAttempt, dueBefore),
            ),
      ),
    async recordFailure(sourceId, attempt, error) {
      const row = await upsertStatus(
        { sourceId, lastAttempt: attempt, error, metadata: {} },
        { lastAttempt: attempt, error, stale: sql`${guideSourceStatus.generation} IS NOT NULL` },
        undefined,
      );
      if (row === undefined)
        throw new Error(`guide source ${sourceId}: the failure was not stored`);
      return row;
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

    async switchGeneration(channels, status) {
      const { sourceId, generation } = status;
      const rows = await d.write(
        "guide",
        async (tx) => {
          // Compare-and-set first: only a newer generation replaces the stored one (on
          // PostgreSQL the upsert locks the status row, so two switches of one source serialise).
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
          if (sqliteChannels !== undefined) {
            sqliteChannels.upsert(sourceId, channels);
            return switched;
          }
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
        },
        wroteRows,
      );
      return firstStatus(rows);
    },
    async forget(sourceId) {
      await d.write("guide", async (tx) => {
        await tx.delete(guideChannels).where(eq(guideChannels.sourceId, sourceId));
        await tx.delete(guideSourceStatus).where(eq(guideSourceStatus.sourceId, sourceId));
      });
    },
    async sourcesWithProgrammes() {
      const rows = await d.db
        .selectDistinct({ sourceId: guideProgrammes.sourceId })
        .from(guideProgrammes);
      return rows.map((r) => r.sourceId);
    },

    async channels(sourceIds) {
      if (sourceIds.length === 0) return [];
      if (sqliteChannels !== undefined) return sqliteChannels.read(sourceIds);
      return d.db
        .select()
        .from(guideChannels)
        .where(inArray(guideChannels.sourceId, [...sourceIds]));
    },
  };
}
