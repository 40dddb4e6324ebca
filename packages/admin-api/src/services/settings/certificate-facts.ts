import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { isoSeconds } from "@svc/core/auth";
import { configDirectory, type GatewayConfig } from "@svc/core/config";

/** What the settings read reports about the TLS certificate (spec "Settings"). */
export interface CertificateFacts {
  readonly source: "none" | "file";
  readonly path: string;
  readonly hosts: readonly string[];
  readonly expires_at: string | null;
  readonly error: string | null;
}

/** Reads `server.tls_cert_file` (first certificate of the PEM) for its names and expiry. */
export function certificateFacts(config: GatewayConfig): CertificateFacts {
  const file = config.server.tls_cert_file;
  if (file === "") return { source: "none", path: "", hosts: [], expires_at: null, error: null };
  const path = resolve(configDirectory(config), file);
  try {
    const cert = new X509Certificate(readFileSync(path));
    const hosts = (cert.subjectAltName ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s.startsWith("DNS:") || s.startsWith("IP Address:"))
      .map((s) => s.slice(s.indexOf(":") + 1));
    return {
      source: "file",
      path,
      hosts,
      expires_at: isoSeconds(new Date(cert.validTo)),
      error: null,
    };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      source: "file",
      path,
      hosts: [],
      expires_at: null,
      error:
        code === "ENOENT"
          ? "certificate file not found"
          : "certificate file is not a readable PEM certificate",
    };
  }
}
