import { GatewayError } from "@svc/core/errors";

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

/** The conflict of a save whose revision another writer moved since `what` was read. */
export function staleRow(what: string): () => GatewayError {
  return () =>
    new GatewayError(
      "conflict",
      `revision mismatch: ${what} changed since it was read (another instance wrote it); reload and retry`,
    );
}
