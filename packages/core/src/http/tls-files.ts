import { createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { configDirectory, type GatewayConfig } from "../config/load.js";
import { ConfigError, type ConfigProblem } from "../config/problems.js";

/** The PEM pair of the `tls_listen` listener, read and checked. */
export interface TlsFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly certificate: X509Certificate;
}

/**
 * Reads `server.tls_cert_file` and `server.tls_key_file` (relative to the config
 * file's directory) and checks that they parse and belong together, so a wrong
 * file is one config line naming the key, not a stack trace from `https`.
 * Undefined when there is no TLS listener or no certificate configured for it.
 * @example const tls = readTlsFiles(config); // throws ConfigError on a bad pair
 */
export function readTlsFiles(config: GatewayConfig): TlsFiles | undefined {
  const s = config.server;
  if (s.tls_listen === "" || s.tls_cert_file === "" || s.tls_key_file === "") return undefined;
  const base = configDirectory(config);
  const problems: ConfigProblem[] = [];
  const read = (path: "tls_cert_file" | "tls_key_file"): Buffer | undefined => {
    const file = resolve(base, s[path]);
    try {
      return readFileSync(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "error";
      problems.push({ path: `server.${path}`, message: `cannot read ${file} (${code})` });
      return undefined;
    }
  };
  const cert = read("tls_cert_file");
  const key = read("tls_key_file");
  let certificate: X509Certificate | undefined;
  let privateKey: KeyObject | undefined;
  if (cert !== undefined) {
    try {
      certificate = new X509Certificate(cert);
    } catch {
      problems.push({ path: "server.tls_cert_file", message: "not a PEM certificate" });
    }
  }
  if (key !== undefined) {
    try {
      privateKey = createPrivateKey(key);
    } catch {
      problems.push({ path: "server.tls_key_file", message: "not a PEM private key" });
    }
  }
  if (
    certificate !== undefined &&
    privateKey !== undefined &&
    !certificate.checkPrivateKey(privateKey)
  )
    problems.push({ path: "server.tls_key_file", message: "does not match the certificate" });
  if (problems.length > 0) throw new ConfigError(problems);
  return { cert: cert!, key: key!, certificate: certificate! };
}
