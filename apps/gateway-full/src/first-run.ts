import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createPasswordHasher } from "@svc/core/auth";

/** Where `npm start` keeps its state when no config is named (operator contract "Commands"). */
export const DEFAULT_DATA_DIR = "./data";
/** The config file of the embedded default, written on the first start. */
export const DEFAULT_CONFIG_PATH = join(DEFAULT_DATA_DIR, "gateway.yaml");

/**
 * First run of the embedded default: writes `./data/gateway.yaml` with one
 * `admin` user and a random password, returned so it can be printed once.
 * An existing file is never touched (the config file is never rewritten).
 */
export async function ensureDefaultConfig(): Promise<{
  path: string;
  password: string | undefined;
}> {
  const dir = resolve(DEFAULT_DATA_DIR);
  const path = join(dir, "gateway.yaml");
  if (existsSync(path)) return { path, password: undefined };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // 18 random bytes: 24 base64url characters, ~144 bits.
  const password = randomBytes(18).toString("base64url");
  // Before the server starts: one hash, alone in the process.
  const hash = await createPasswordHasher({ cores: 1 }).hash(password);
  const yaml = [
    "# Written by the first `npm start`. Edit freely: the gateway never rewrites this file.",
    "server:",
    '  listen: "127.0.0.1:8080"',
    `  data_dir: "${dir.replace(/\\/g, "/")}"`,
    "auth:",
    "  users:",
    "    - username: admin",
    `      password_hash: "${hash}"`,
    "      role: admin",
    "",
  ].join("\n");
  writeFileSync(path, yaml, { mode: 0o600, flag: "wx" });
  return { path, password };
}
