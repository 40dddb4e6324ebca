import { bigint } from "drizzle-orm/pg-core";

/** Epoch milliseconds (or seconds): beyond int4, read back as a JS number. */
export const epoch = (name: string) => bigint(name, { mode: "number" });
