import { GatewayError } from "@svc/core/errors";
import { checkRevision } from "../if-match.js";
import type { SettingsStore } from "./settings-store.js";

export interface SettingsWrite {
  readonly public_base_url: string;
  readonly access_log_retention_days: string;
  readonly tls_enabled?: boolean | undefined;
}

/** Retention is a string holding an integer 1..3650 (spec "Settings"). */
export function parseRetentionDays(value: string): number {
  if (!/^[0-9]{1,4}$/.test(value.trim())) {
    throw new GatewayError(
      "invalid_request",
      "access_log_retention_days: must be an integer 1..3650",
    );
  }
  const days = Number(value.trim());
  if (days < 1 || days > 3650) {
    throw new GatewayError(
      "invalid_request",
      "access_log_retention_days: must be an integer 1..3650",
    );
  }
  return days;
}

function checkBaseUrl(value: string): string {
  if (value === "") return "";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new GatewayError("invalid_request", "public_base_url: must be an http(s) URL");
  }
  if (
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.search !== "" ||
    url.hash !== "" ||
    url.username !== "" ||
    url.password !== ""
  ) {
    throw new GatewayError(
      "invalid_request",
      "public_base_url: must be an http(s) URL without credentials, query or fragment",
    );
  }
  return value.replace(/\/+$/, "");
}

/**
 * `PUT /v1/admin/settings`: `If-Match` required (missing: 409); `tls_enabled`
 * keeps its value when omitted and takes effect after a restart. A shorter
 * retention is applied to the access log at once (`purge`), not at the next
 * hourly run.
 */
export async function updateSettings(
  store: SettingsStore,
  purge: (retentionDays: number) => void,
  ifMatch: string | undefined,
  body: SettingsWrite,
) {
  const cur = store.current();
  checkRevision(ifMatch, cur.revision, { required: true });
  const next = {
    ...cur,
    publicBaseUrl: checkBaseUrl(body.public_base_url),
    accessLogRetentionDays: parseRetentionDays(body.access_log_retention_days),
    tlsEnabled: body.tls_enabled ?? cur.tlsEnabled,
    revision: cur.revision + 1,
    updatedAt: Date.now(),
  };
  await store.save(next);
  if (next.accessLogRetentionDays < cur.accessLogRetentionDays) purge(next.accessLogRetentionDays);
  return next;
}
