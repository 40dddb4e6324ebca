import { GatewayError } from "@svc/core/errors";
import type { egressConfig } from "../../db/schema/index.js";

/** The egress document's row (spec "Egress configuration"); the table holds one, with id 1. */
export type EgressRow = typeof egressConfig.$inferSelect;

/**
 * The stored egress document's storage. A save is compare-and-set on the revision, so
 * two instances that read the same revision cannot both write over it.
 */
export interface EgressRepository {
  /** The stored row; undefined before the first start stored one. */
  load(): Promise<EgressRow | undefined>;
  /** The stored row, storing `initial` first when there is none (instances starting together store one). */
  loadOrCreate(initial: EgressRow): Promise<EgressRow>;
  /** Stores `next` while the stored revision is `next.revision - 1`; else a 409 and nothing stored. */
  save(next: EgressRow): Promise<void>;
}

/** The conflict of a save whose revision another writer moved since it was read. */
export function staleEgress(): GatewayError {
  return new GatewayError(
    "conflict",
    "revision mismatch: the egress document changed since it was read (another instance wrote it); reload and retry",
  );
}
