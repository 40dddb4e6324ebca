import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (tests/dist/harness → ../../..). */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
