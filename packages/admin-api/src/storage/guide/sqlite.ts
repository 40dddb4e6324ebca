import type { StateDb } from "../../db/client.js";
import { connectionLock } from "../dialect/dialect.js";
import type {
  GuideChannelInput,
  GuideProgrammes,
  ProgrammeInput,
  ProgrammeRow,
  ProgrammeWriter,
  StoredGuideChannel,
} from "./repository.js";

/** SQLite's default `wal_autocheckpoint`, in pages. */
const DEFAULT_CHECKPOINT_PAGES = 1000;
/** During an import: 8,192 pages of 4 KiB, 32 MiB of WAL between checkpoints. */
const IMPORT_CHECKPOINT_PAGES = 8192;
/** Programme rows one purge statement deletes before yielding to the event loop. */
const PURGE_BATCH_ROWS = 20_000;

/**
 * The guide's programme rows on the embedded SQLite file: millions of inserts per
 * refresh, one read per channel of epg.xml, through prepared better-sqlite3 statements
 * (drizzle's query builder costs more per row than SQLite itself at that volume).
 * better-sqlite3 is synchronous: every method does its whole work before its promise is
 * returned.
 */
export function sqliteProgrammes(db: StateDb): GuideProgrammes {
  const client = db.$client;
  // Every write takes the connection's lock (see connectionLock).
  const exclusive = connectionLock(client);
  const insertProgramme = client.prepare(
    "INSERT INTO guide_programmes (source_id, generation, xmltv_id, start, stop, body) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const importTransaction = client.transaction((work: () => unknown) => work());
  const selectProgrammes = client.prepare(
    "SELECT start, stop, body FROM guide_programmes WHERE source_id = ? AND generation = ? AND xmltv_id = ? ORDER BY start, rowid",
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
      while (!closed && (await exclusive(async () => batch())) > 0)
        await new Promise((resolve) => setImmediate(resolve));
    } catch {
      // The database closed under a background purge (shutdown): the rows of an
      // unused generation are deleted later (docs/guide.md "Refresh").
    }
  }

  return {
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
        write: (parse) =>
          exclusive(async () => {
            // Rows of a generation nobody reads yet need no fsync of their own: WAL
            // keeps the file consistent, and the switch (synchronous = FULL) makes
            // them durable. better-sqlite3 is synchronous, so no other write runs
            // while the pragma is relaxed. The checkpoint runs in the commit:
            // copying the WAL into the database every 32 MiB instead of every 4 MiB
            // (SQLite's default) writes each index page that many transactions
            // touch once, not eight times. The WAL file stays bounded by that size.
            client.pragma("synchronous = NORMAL");
            client.pragma(`wal_autocheckpoint = ${IMPORT_CHECKPOINT_PAGES}`);
            try {
              return importTransaction(() => parse(insert)) as ReturnType<typeof parse>;
            } finally {
              client.pragma(`wal_autocheckpoint = ${DEFAULT_CHECKPOINT_PAGES}`);
              client.pragma("synchronous = FULL");
            }
          }),
        get stored() {
          return stored;
        },
        async close() {},
      };
      return writer;
    },
    purge: (sourceId, below, keep) =>
      deleteInBatches(() => deleteOldBatch.run(sourceId, below, keep).changes),
    dropGeneration: (sourceId, generation) =>
      deleteInBatches(() => deleteGenerationBatch.run(sourceId, generation).changes),
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

/**
 * A source's `<channel>` rows on SQLite through prepared statements: the switch's upsert,
 * one run per channel inside the switch's transaction (better-sqlite3 is synchronous, so the
 * rows join the `BEGIN IMMEDIATE` the dialect holds open), and matching's read of every row.
 * drizzle's builder and row mapping spent seconds of CPU on a 40,000-channel guide
 * (docs/benchmarks.md "Guide"), more than SQLite spends on the rows.
 */
export function sqliteGuideChannels(db: StateDb) {
  const upsert = db.$client.prepare(
    "INSERT INTO guide_channels (source_id, xmltv_id, display_names, icon, present) VALUES (?, ?, ?, ?, 1) " +
      "ON CONFLICT (source_id, xmltv_id) DO UPDATE SET display_names = excluded.display_names, icon = excluded.icon, present = 1",
  );
  const select = db.$client.prepare(
    "SELECT source_id, xmltv_id, display_names, icon, present FROM guide_channels WHERE source_id = ?",
  );
  type Row = {
    source_id: string;
    xmltv_id: string;
    display_names: string;
    icon: string;
    present: number;
  };
  return {
    upsert(sourceId: string, channels: readonly GuideChannelInput[]): void {
      for (const c of channels) upsert.run(sourceId, c.id, JSON.stringify(c.displayNames), c.icon);
    },
    /** The rows of these sources, read the same way (matching reads all of them at once). */
    read(sourceIds: readonly string[]): StoredGuideChannel[] {
      const out: StoredGuideChannel[] = [];
      for (const id of new Set(sourceIds))
        for (const r of select.all(id) as Row[])
          out.push({
            sourceId: r.source_id,
            xmltvId: r.xmltv_id,
            displayNames: JSON.parse(r.display_names) as string[],
            icon: r.icon,
            present: r.present !== 0,
          });
      return out;
    },
  };
}
