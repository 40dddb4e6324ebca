import type { StateDb } from "../../db/client.js";
import type {
  GuideProgrammes,
  ProgrammeInput,
  ProgrammeRow,
  ProgrammeWriter,
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
      while (!closed && batch() > 0) await new Promise((resolve) => setImmediate(resolve));
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
        async write(parse) {
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
        },
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
