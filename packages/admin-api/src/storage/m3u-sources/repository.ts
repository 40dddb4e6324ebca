import { and, asc, eq, isNull, lte, or } from "drizzle-orm";
import type { m3uSourceStatus, m3uSources } from "../../db/schema/index.js";
import type { Dialect } from "../dialect/dialect.js";

/** A stored `m3u_sources` row (db/tables/m3u-sources.ts). */
export type M3uSourceRow = Readonly<typeof m3uSources.$inferSelect>;
/** Sync state of one source (db/tables/m3u-source-status.ts). */
export type M3uSourceStatusRow = Readonly<typeof m3uSourceStatus.$inferSelect>;

/** What a finished attempt records (a failure: `error` set, counts and validators untouched). */
export type M3uSyncResult =
  | { readonly ok: false; readonly error: string }
  | {
      readonly ok: true;
      readonly created: number;
      readonly updated: number;
      readonly disabled: number;
      readonly skipped: number;
      /** Validators of the download; undefined keeps the stored ones (a 304). */
      readonly validators?: { readonly etag: string | null; readonly lastModified: string | null };
    };

/**
 * The M3U provider sources and their sync states. Nothing of it is mirrored in
 * memory: a handful of rows read per request, so every instance of a cluster
 * sees every write at once. Writes compare revisions (sources) and attempts
 * (claims) in the database, never in memory.
 */
export interface M3uSourceRepository {
  /** Every source, in creation order. */
  list(): Promise<M3uSourceRow[]>;
  get(id: string): Promise<M3uSourceRow | undefined>;
  /**
   * Stores `row` when the stored row of its id still has revision `expected`
   * (undefined: no row is stored); false when another writer changed it first.
   */
  save(row: M3uSourceRow, expected: number | undefined): Promise<boolean>;
  /** Deletes the source and its status when it still has revision `expected`. */
  remove(id: string, expected: number): Promise<boolean>;
  statuses(): Promise<M3uSourceStatusRow[]>;
  status(id: string): Promise<M3uSourceStatusRow | undefined>;
  /**
   * Claims a source for an attempt at `attempt` (epoch ms) when its last attempt
   * is null or at most `dueBefore` (`null`: unconditionally); false when another
   * instance claimed it since. One compare-and-set in the database.
   */
  claim(id: string, attempt: number, dueBefore: number | null): Promise<boolean>;
  /** Records the outcome of the attempt at `attempt`. */
  finish(id: string, attempt: number, result: M3uSyncResult): Promise<void>;
  /** Forgets the download validators (the URL changed). */
  clearValidators(id: string): Promise<void>;
  /** Deletes a status row left by a sync that outlived its source (before a create). */
  forgetStatus(id: string): Promise<void>;
}

export function m3uSourceRepository(d: Dialect): M3uSourceRepository {
  const { m3uSources: sources, m3uSourceStatus: status } = d.tables;
  return {
    list: () => d.db.select().from(sources).orderBy(asc(sources.position), asc(sources.id)),
    async get(id) {
      const rows = await d.db.select().from(sources).where(eq(sources.id, id));
      return rows[0];
    },
    async save(row, expected) {
      const written = await d.transaction((tx) =>
        expected === undefined
          ? tx.insert(sources).values(row).onConflictDoNothing().returning({ id: sources.id })
          : tx
              .update(sources)
              .set(row)
              .where(and(eq(sources.id, row.id), eq(sources.revision, expected)))
              .returning({ id: sources.id }),
      );
      return written.length === 1;
    },
    remove: (id, expected) =>
      d.transaction(async (tx) => {
        const gone = await tx
          .delete(sources)
          .where(and(eq(sources.id, id), eq(sources.revision, expected)))
          .returning({ id: sources.id });
        if (gone.length === 0) return false;
        await tx.delete(status).where(eq(status.sourceId, id));
        return true;
      }),
    statuses: () => d.db.select().from(status),
    async status(id) {
      const rows = await d.db.select().from(status).where(eq(status.sourceId, id));
      return rows[0];
    },
    async claim(id, attempt, dueBefore) {
      const rows = await d.transaction((tx) =>
        tx
          .insert(status)
          .values({ sourceId: id, lastAttempt: attempt })
          .onConflictDoUpdate({
            target: status.sourceId,
            set: { lastAttempt: attempt },
            ...(dueBefore === null
              ? {}
              : { setWhere: or(isNull(status.lastAttempt), lte(status.lastAttempt, dueBefore)) }),
          })
          .returning({ id: status.sourceId }),
      );
      return rows.length === 1;
    },
    async finish(id, attempt, result) {
      const set = result.ok
        ? {
            lastSuccess: attempt,
            error: null,
            created: result.created,
            updated: result.updated,
            disabled: result.disabled,
            skipped: result.skipped,
            ...(result.validators === undefined
              ? {}
              : { etag: result.validators.etag, lastModified: result.validators.lastModified }),
          }
        : { error: result.error };
      await d.transaction((tx) =>
        tx
          .insert(status)
          .values({ sourceId: id, lastAttempt: attempt, ...set })
          .onConflictDoUpdate({ target: status.sourceId, set }),
      );
    },
    async forgetStatus(id) {
      await d.transaction((tx) => tx.delete(status).where(eq(status.sourceId, id)));
    },
    async clearValidators(id) {
      await d.transaction((tx) =>
        tx.update(status).set({ etag: null, lastModified: null }).where(eq(status.sourceId, id)),
      );
    },
  };
}
