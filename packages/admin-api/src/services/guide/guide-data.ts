import type { StateDb } from "../../db/client.js";
import type { GuideChannelRecord, ProgrammeRecord } from "./xmltv-reader.js";

/** Status of one source as stored (spec "Guide source", status entry). */
export interface SourceStatusRow {
  readonly sourceId: string;
  readonly lastAttempt: number | null;
  readonly lastSuccess: number | null;
  readonly stale: boolean;
  readonly error: string | null;
  readonly channelCount: number;
  readonly programmeCount: number;
  readonly generation: number | null;
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly metadata: Record<string, unknown>;
}

/** SQLite's default `wal_autocheckpoint`, in pages. */
const DEFAULT_CHECKPOINT_PAGES = 1000;
/** During an import: 8,192 pages of 4 KiB, 32 MiB of WAL between checkpoints. */
const IMPORT_CHECKPOINT_PAGES = 8192;

/** A guide channel with its source, for matching and logos. */
export interface StoredGuideChannel {
  readonly sourceId: string;
  readonly xmltvId: string;
  readonly displayNames: readonly string[];
  readonly icon: string;
  readonly present: boolean;
}

export interface ProgrammeRow {
  readonly start: number;
  readonly stop: number | null;
  readonly body: string;
}

/**
 * The guide tables (drizzle schema in db/schema/guide-*.ts). The hot paths —
 * millions of programme inserts per refresh, one read per channel of epg.xml —
 * use prepared better-sqlite3 statements: drizzle's query builder costs more per
 * row than SQLite itself at that volume.
 */
export function createGuideData(db: StateDb) {
  const sql = db.$client;
  const insertProgramme = sql.prepare(
    "INSERT OR IGNORE INTO guide_programmes (source_id, generation, xmltv_id, start, stop, body) VALUES (?, ?, ?, ?, ?, ?)",
  );
  // Rows of a generation nobody reads yet need no fsync of their own: WAL keeps
  // the file consistent, and commit() (synchronous = FULL) makes them durable
  // with the switch. better-sqlite3 is synchronous, so no other write runs while
  // the pragma is relaxed.
  const importTransaction = sql.transaction((work: () => unknown) => work());
  const selectProgrammes = sql.prepare(
    "SELECT start, stop, body FROM guide_programmes WHERE source_id = ? AND generation = ? AND xmltv_id = ? ORDER BY start",
  );
  const selectStatus = sql.prepare("SELECT * FROM guide_source_status WHERE source_id = ?");
  const upsertChannel = sql.prepare(
    `INSERT INTO guide_channels (source_id, xmltv_id, display_names, icon, present) VALUES (?, ?, ?, ?, 1)
     ON CONFLICT (source_id, xmltv_id) DO UPDATE SET display_names = excluded.display_names, icon = excluded.icon, present = 1`,
  );
  const deleteOldBatch = sql.prepare(
    "DELETE FROM guide_programmes WHERE rowid IN (SELECT rowid FROM guide_programmes WHERE source_id = ? AND generation < ? AND generation IS NOT ? LIMIT 20000)",
  );
  let version = 1;
  let closed = false;

  const toStatus = (r: Record<string, unknown> | undefined, sourceId: string): SourceStatusRow => ({
    sourceId,
    lastAttempt: (r?.last_attempt as number | null) ?? null,
    lastSuccess: (r?.last_success as number | null) ?? null,
    stale: r?.stale === 1,
    error: (r?.error as string | null) ?? null,
    channelCount: (r?.channel_count as number) ?? 0,
    programmeCount: (r?.programme_count as number) ?? 0,
    generation: (r?.generation as number | null) ?? null,
    etag: (r?.etag as string | null) ?? null,
    lastModified: (r?.last_modified as string | null) ?? null,
    metadata:
      r?.metadata === undefined
        ? {}
        : (JSON.parse(r.metadata as string) as Record<string, unknown>),
  });

  const writeStatus = (s: SourceStatusRow) => {
    sql
      .prepare(
        `INSERT INTO guide_source_status (source_id, last_attempt, last_success, stale, error, channel_count, programme_count, generation, etag, last_modified, metadata)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (source_id) DO UPDATE SET last_attempt = excluded.last_attempt, last_success = excluded.last_success,
           stale = excluded.stale, error = excluded.error, channel_count = excluded.channel_count,
           programme_count = excluded.programme_count, generation = excluded.generation, etag = excluded.etag,
           last_modified = excluded.last_modified, metadata = excluded.metadata`,
      )
      .run(
        s.sourceId,
        s.lastAttempt,
        s.lastSuccess,
        s.stale ? 1 : 0,
        s.error,
        s.channelCount,
        s.programmeCount,
        s.generation,
        s.etag,
        s.lastModified,
        JSON.stringify(s.metadata),
      );
  };

  return {
    /** Changes whenever what epg.xml or matching reads changed. */
    version: () => version,
    status: (sourceId: string) =>
      toStatus(selectStatus.get(sourceId) as Record<string, unknown> | undefined, sourceId),
    /** Records an attempt's outcome without touching the data (a failed or unchanged refresh). */
    writeStatus(s: SourceStatusRow) {
      writeStatus(s);
      version += 1;
    },
    /**
     * Runs `work` — which calls {@link insertProgramme} — as one transaction of
     * the generation being read (docs/guide.md "Refresh"). The caller hands each
     * programme over as soon as it is read: nothing waits in a JS array, so the
     * parsed objects die young instead of being promoted to V8's old space.
     */
    importing<T>(work: () => T): T {
      sql.pragma("synchronous = NORMAL");
      // The checkpoint runs in the commit: copying the WAL into the database
      // every 32 MiB instead of every 4 MiB (SQLite's default) writes each
      // index page that many transactions touch once, not eight times. The WAL
      // file stays bounded by that size.
      sql.pragma(`wal_autocheckpoint = ${IMPORT_CHECKPOINT_PAGES}`);
      try {
        return importTransaction(work) as T;
      } finally {
        sql.pragma(`wal_autocheckpoint = ${DEFAULT_CHECKPOINT_PAGES}`);
        sql.pragma("synchronous = FULL");
      }
    },
    /** Stores one programme of a generation; 0 when its channel already has one at that start. */
    insertProgramme: (sourceId: string, generation: number, p: ProgrammeRecord): number =>
      insertProgramme.run(sourceId, generation, p.channel, p.start, p.stop, p.body).changes,
    /**
     * Switches a source to a fully read generation in one transaction: its
     * channels (those absent from the new document stay, `present` false) and
     * its status. Older generations become invisible at once; {@link purgeOld}
     * deletes them afterwards without holding the database.
     */
    commit(channels: readonly GuideChannelRecord[], status: SourceStatusRow) {
      sql.transaction(() => {
        sql
          .prepare("UPDATE guide_channels SET present = 0 WHERE source_id = ?")
          .run(status.sourceId);
        for (const c of channels)
          upsertChannel.run(status.sourceId, c.id, JSON.stringify(c.displayNames), c.icon);
        writeStatus(status);
      })();
      version += 1;
    },
    /**
     * Deletes programmes of the generations below `below` except `keep`, 20,000
     * rows per turn of the event loop. Generations are start times of their
     * refresh (epoch ms, increasing), so a purge never touches the rows of a
     * refresh that started after the purge's bound.
     */
    async purgeOld(sourceId: string, below: number, keep: number | null = null): Promise<void> {
      try {
        while (!closed && deleteOldBatch.run(sourceId, below, keep).changes > 0)
          await new Promise((resolve) => setImmediate(resolve));
      } catch {
        // The database closed under a background purge (shutdown): the rows of an
        // unused generation are deleted at the next start.
      }
    },
    /** Stops background purges; called before the database closes. */
    close() {
      closed = true;
    },
    /** Forgets a removed source entirely. */
    forget(sourceId: string) {
      sql.transaction(() => {
        sql.prepare("DELETE FROM guide_channels WHERE source_id = ?").run(sourceId);
        sql.prepare("DELETE FROM guide_source_status WHERE source_id = ?").run(sourceId);
      })();
      version += 1;
    },
    channels(sourceIds: readonly string[]): StoredGuideChannel[] {
      if (sourceIds.length === 0) return [];
      const rows = sql
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
    programmes: (sourceId: string, generation: number, xmltvId: string) =>
      selectProgrammes.all(sourceId, generation, xmltvId) as ProgrammeRow[],
    /** Source ids that have programme rows (to purge leftovers of removed sources or crashes). */
    sourcesWithProgrammes: () =>
      (
        sql.prepare("SELECT DISTINCT source_id FROM guide_programmes").all() as {
          source_id: string;
        }[]
      ).map((r) => r.source_id),
  };
}

export type GuideData = ReturnType<typeof createGuideData>;
