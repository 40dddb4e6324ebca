import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assertClusterIdentity, ConfigError, type GatewayConfig } from "@svc/core/config";

/**
 * The HMAC key of `u/` URLs and viewer leases (contract `security.signing_key`):
 * the configured value, else in the full build `{data_dir}/auth/signing.key`
 * (generated with mode 0600, so signed URLs survive a restart), else in the lite
 * build random per process. The key never reaches a log line.
 */
export function resolveUrlSigningKey(config: GatewayConfig, build: "full" | "lite"): Buffer {
  if (config.security.signing_key !== "") return Buffer.from(config.security.signing_key, "utf8");
  if (build === "lite") return randomBytes(32);
  // Never per instance in cluster mode (contract "Cluster mode").
  assertClusterIdentity(config);
  const dir = join(config.server.data_dir, "auth");
  const path = join(dir, "signing.key");
  try {
    const text = readFileSync(path, "utf8").trim();
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    if (text.length >= 32) return Buffer.from(text, "utf8");
    // A short key is never replaced silently (every signed URL would change) nor used.
    throw new ConfigError([
      {
        path: "security.signing_key",
        message: `${path} holds fewer than 32 characters; remove it to have a new key generated, or set security.signing_key`,
      },
    ]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const text = randomBytes(32).toString("base64url");
  try {
    writeFileSync(path, `${text}\n`, { mode: 0o600, flag: "wx" });
  } catch (err) {
    // Another process won the race: use what it wrote.
    if ((err as NodeJS.ErrnoException).code === "EEXIST")
      return resolveUrlSigningKey(config, build);
    throw err;
  }
  return Buffer.from(text, "utf8");
}
