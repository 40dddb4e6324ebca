import { randomBytes } from "node:crypto";
import { ed25519Pair } from "./keys.js";
import { createDatabase } from "./postgres-server.js";

/**
 * Which database the full binary's black-box suites run on: the embedded
 * SQLite file (the default), or PostgreSQL in `npm test`'s second pass
 * (`SVC_TEST_STORAGE=postgres`, scripts/test.mjs), where every full gateway
 * a test starts gets a database of the harness's server.
 */
export const TEST_STORAGE: "sqlite" | "postgres" =
  process.env.SVC_TEST_STORAGE === "postgres" ? "postgres" : "sqlite";

/** `{ skip }` of a test that opens `state.db` itself: there is none in the PostgreSQL pass. */
export const SQLITE_ONLY: string | false =
  TEST_STORAGE === "postgres" && "reads state.db directly: SQLite only (PostgreSQL pass)";

/** The database of each gateway dir: a restart on the same dir finds its state again. */
const databaseOfDir = new Map<string, string>();

/**
 * Cluster mode needs the identity given, not generated (operator contract
 * "Cluster mode"): one pair and one signing key for the whole test process,
 * so a restart or a second instance verifies what the first one signed.
 */
let identity: { privatePem: string; publicPem: string; signingKey: string } | undefined;

/**
 * The PostgreSQL pass's additions to a full gateway's start: the database URL
 * through `SVC_DATABASE_URL` (never in the config file), and the token pair
 * and `security.signing_key` when the test's config has none. A test that
 * names its own database or key keeps it. Outside that pass: unchanged.
 */
export async function withTestStorage(
  build: "full" | "lite",
  config: Record<string, unknown>,
  env: Record<string, string>,
  dir: string,
): Promise<{ config: Record<string, unknown>; env: Record<string, string> }> {
  if (build !== "full" || TEST_STORAGE !== "postgres") return { config, env };
  const server = (config.server ?? {}) as Record<string, unknown>;
  const out = { config: { ...config }, env: { ...env } };
  if (!server.database_url && !env.SVC_DATABASE_URL) {
    let url = databaseOfDir.get(dir);
    if (url === undefined) {
      url = await createDatabase();
      if (url === undefined)
        throw new Error("SVC_TEST_STORAGE=postgres, but the PostgreSQL server is not installed");
      databaseOfDir.set(dir, url);
    }
    out.env.SVC_DATABASE_URL = url;
  }
  identity ??= { ...ed25519Pair(), signingKey: randomBytes(32).toString("hex") };
  const auth = config.auth as Record<string, unknown> | undefined;
  const keyGiven =
    auth?.token_private_key ||
    auth?.token_private_key_file ||
    auth?.token_public_key ||
    auth?.token_public_key_file ||
    env.SVC_TOKEN_PRIVATE_KEY ||
    env.SVC_TOKEN_PRIVATE_KEY_FILE;
  if (auth !== undefined && !keyGiven)
    out.config.auth = {
      ...auth,
      token_private_key: identity.privatePem,
      token_public_key: identity.publicPem,
    };
  const security = config.security as Record<string, unknown> | undefined;
  if (!security?.signing_key)
    out.config.security = { ...security, signing_key: identity.signingKey };
  return out;
}
