import type { settings } from "../../db/schema/index.js";
import { type SingleRowRepository, staleRow } from "../single-row-repository.js";

/** The settings row (spec "Settings"); the table holds one, with id 1. */
export type SettingsRow = typeof settings.$inferSelect;

/** The runtime settings' storage: one row, saved compare-and-set on its revision. */
export type SettingsRepository = SingleRowRepository<SettingsRow>;

/** The conflict of a save whose revision another writer moved since it was read. */
export const staleSettings = staleRow("the settings row");
