import type { egressConfig } from "../../db/schema/index.js";
import { type SingleRowRepository, staleRow } from "../single-row-repository.js";

/** The egress document's row (spec "Egress configuration"); the table holds one, with id 1. */
export type EgressRow = typeof egressConfig.$inferSelect;

/** The stored egress document's storage: one row, saved compare-and-set on its revision. */
export type EgressRepository = SingleRowRepository<EgressRow>;

/** The conflict of a save whose revision another writer moved since it was read. */
export const staleEgress = staleRow("the egress document");
