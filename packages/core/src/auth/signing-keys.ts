import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { configDirectory, type GatewayConfig } from "../config/load.js";
import { ConfigError } from "../config/problems.js";

/** The Ed25519 pair that signs and verifies session and preview JWTs. */
export interface SigningKeys {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** Where the private key came from (spec "Session signing" 1). */
  readonly source: "inline" | "file" | "generated";
}

/**
 * Resolves the signing key in the spec's order, first match wins: inline PEM,
 * key file, else `{data_dir}/auth/ed25519.pem` (generated with mode 0600 when
 * missing, public half beside it). A configured public key must match.
 * Throws {@link ConfigError} so the app exits 2 like any config problem.
 * `write: false` (`--check-config`) checks the same sources but writes nothing:
 * a missing generated key is made in memory only.
 */
export function resolveSigningKeys(
  config: GatewayConfig,
  options: { write?: boolean } = {},
): SigningKeys {
  const auth = config.auth;
  const base = configDirectory(config);
  let privateKey: KeyObject;
  let source: SigningKeys["source"];
  if (auth.token_private_key !== "") {
    privateKey = parsePrivate(auth.token_private_key, "auth.token_private_key");
    source = "inline";
  } else if (auth.token_private_key_file !== "") {
    const path = resolve(base, auth.token_private_key_file);
    privateKey = parsePrivate(
      readKeyFile(path, "auth.token_private_key_file"),
      "auth.token_private_key_file",
    );
    source = "file";
  } else {
    privateKey = loadOrGenerate(join(config.server.data_dir, "auth"), options.write ?? true);
    source = "generated";
  }
  const derived = createPublicKey(privateKey);
  const configuredPem =
    auth.token_public_key !== ""
      ? { pem: auth.token_public_key, path: "auth.token_public_key" }
      : auth.token_public_key_file !== ""
        ? {
            pem: readKeyFile(
              resolve(base, auth.token_public_key_file),
              "auth.token_public_key_file",
            ),
            path: "auth.token_public_key_file",
          }
        : undefined;
  if (configuredPem !== undefined) {
    let configured: KeyObject;
    try {
      configured = createPublicKey(configuredPem.pem);
    } catch {
      throw new ConfigError([{ path: configuredPem.path, message: "not a PEM public key" }]);
    }
    const a = configured.export({ format: "der", type: "spki" });
    const b = derived.export({ format: "der", type: "spki" });
    if (!a.equals(b)) {
      throw new ConfigError([
        { path: configuredPem.path, message: "does not match the private key" },
      ]);
    }
  }
  return Object.freeze({ privateKey, publicKey: derived, source });
}

function parsePrivate(pem: string, path: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new ConfigError([{ path, message: "not a PEM private key" }]);
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw new ConfigError([
      { path, message: `must be an Ed25519 key, got ${key.asymmetricKeyType ?? "unknown"}` },
    ]);
  }
  return key;
}

function readKeyFile(path: string, configPath: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError([
      {
        path: configPath,
        message: `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? "error"})`,
      },
    ]);
  }
}

function loadOrGenerate(dir: string, write: boolean): KeyObject {
  const privatePath = join(dir, "ed25519.pem");
  const publicPath = join(dir, "ed25519.pub.pem");
  try {
    const pem = readFileSync(privatePath, "utf8");
    // Keep the key private even if someone loosened the mode by hand.
    if (write && (statSync(privatePath).mode & 0o077) !== 0) chmodSync(privatePath, 0o600);
    return parsePrivate(pem, "server.data_dir");
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new ConfigError([{ path: "server.data_dir", message: `cannot read ${privatePath}` }]);
    }
  }
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  if (!write) return privateKey;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // `wx`: never overwrite a key another process wrote between our read and now.
  writeFileSync(privatePath, privateKey.export({ format: "pem", type: "pkcs8" }), {
    mode: 0o600,
    flag: "wx",
  });
  writeFileSync(publicPath, publicKey.export({ format: "pem", type: "spki" }), { mode: 0o644 });
  return privateKey;
}
