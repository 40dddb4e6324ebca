import { GatewayError } from "@svc/core/errors";
import { and, eq } from "drizzle-orm";
import { type Dialect, type Tables, wroteRows } from "./dialect/dialect.js";
import type { MirroredResource } from "./kernel/change-feed.js";

/**
 * The storage of a table that holds one row (id 1): the runtime settings, the egress
 * document. A save is compare-and-set on the revision, so two instances that read the
 * same revision cannot both write over it.
 */
export interface SingleRowRepository<Row extends { revision: number }> {
  /** The stored row; undefined before the first start stored one. */
  load(): Promise<Row | undefined>;
  /** The stored row, storing `initial` first when there is none (instances starting together store one). */
  loadOrCreate(initial: Row): Promise<Row>;
  /** Stores `next` while the stored revision is `next.revision - 1`; else a 409 and nothing stored. */
  save(next: Row): Promise<void>;
}

/** The single-row tables, and the mirrored resource each belongs to. */
const RESOURCES = { settings: "settings", egressConfig: "egress" } as const;

/**
 * The repository of one single-row table; `what` names the row in the 409 of a lost save.
 *
 * @example
 * const settings = singleRowRepository(dialect, "settings", "the settings row");
 * await settings.save({ ...(await settings.load())!, revision: 2 });
 */
export function singleRowRepository<K extends keyof typeof RESOURCES>(
  d: Dialect,
  name: K,
  what: string,
): SingleRowRepository<Tables[K]["$inferSelect"]> {
  type Row = Tables[K]["$inferSelect"];
  // The two tables share `id` and `revision`; their other columns pass through as a whole row.
  const table = d.tables[name] as Tables["settings"];
  const resource: MirroredResource = RESOURCES[name];
  const load = async () =>
    (await d.db.select().from(table).where(eq(table.id, 1)))[0] as Row | undefined;
  return {
    load,
    async loadOrCreate(initial) {
      await d.write(
        resource,
        (tx) =>
          tx
            .insert(table)
            .values(initial as never)
            .onConflictDoNothing()
            .returning({ id: table.id }),
        wroteRows,
      );
      const row = await load();
      if (row === undefined) throw new Error(`${what} vanished right after it was stored`);
      return row;
    },
    async save(next) {
      const saved = await d.write(
        resource,
        (tx) =>
          tx
            .update(table)
            .set(next as never)
            .where(and(eq(table.id, 1), eq(table.revision, next.revision - 1)))
            .returning({ id: table.id }),
        wroteRows,
      );
      if (saved.length !== 1)
        throw new GatewayError(
          "conflict",
          `revision mismatch: ${what} changed since it was read (another instance wrote it); reload and retry`,
        );
    },
  };
}

/** The settings row (spec "Settings"). */
export type SettingsRow = Tables["settings"]["$inferSelect"];
export type SettingsRepository = SingleRowRepository<SettingsRow>;
export const settingsRepository = (d: Dialect): SettingsRepository =>
  singleRowRepository(d, "settings", "the settings row");

/** The egress document's row (spec "Egress configuration"). */
export type EgressRow = Tables["egressConfig"]["$inferSelect"];
export type EgressRepository = SingleRowRepository<EgressRow>;
export const egressRepository = (d: Dialect): EgressRepository =>
  singleRowRepository(d, "egressConfig", "the egress document");
