import { checkProxyUrl, DIRECT, type ProxyScheme, type RoutingDocument } from "@svc/core/egress";

import type {
  PlaylistPolicy,
  StoredEgressDocument,
  StoredProfile,
  StoredRule,
} from "../../db/tables/egress-document.js";

export type { PlaylistPolicy, StoredEgressDocument, StoredProfile, StoredRule };

export const EMPTY_DOCUMENT: StoredEgressDocument = {
  default: DIRECT,
  playlist_policy: "rewrite",
  docker_proxy_host: "",
  proxies: [],
  rules: [],
};

/** What the egress module routes with. */
export function routingOf(doc: StoredEgressDocument): RoutingDocument {
  return {
    default: doc.default,
    docker_proxy_host: doc.docker_proxy_host,
    proxies: doc.proxies.map(({ id, name, url, disabled }) => ({ id, name, url, disabled })),
    rules: doc.rules,
  };
}

/** Spec: "In responses the url is reduced to scheme and host", plus `credential_configured`. */
export function renderProfile(p: StoredProfile) {
  const checked = checkProxyUrl(p.url);
  const url = checked.ok ? `${checked.url.protocol}//${checked.url.host}` : "";
  return {
    id: p.id,
    name: p.name,
    url,
    disabled: p.disabled,
    credential_configured: checked.ok && checked.url.username !== "",
    revision: p.revision,
  };
}

/** The egress configuration resource (spec "Egress configuration"). */
export function renderEgressDocument(doc: StoredEgressDocument, source: string, revision: number) {
  return {
    default: doc.default,
    playlist_policy: doc.playlist_policy,
    docker_proxy_host: doc.docker_proxy_host,
    proxies: doc.proxies.map(renderProfile),
    rules: doc.rules.map(({ id, kind, pattern, proxy }) => ({ id, kind, pattern, proxy })),
    source,
    revision,
  };
}

/**
 * Spec "Egress": when scheme and host of a written URL are unchanged and it carries no
 * credentials, the stored ones are kept (responses never show them, so a client that writes
 * back what it read must not erase them). `clear` drops them instead.
 */
export function mergeCredential(
  written: string,
  stored: string | undefined,
  clear: boolean,
): string {
  const next = checkProxyUrl(written);
  if (!next.ok || stored === undefined) return written;
  const u = next.url;
  if (clear) {
    u.username = "";
    u.password = "";
    return u.href.replace(/\/$/, "");
  }
  if (u.username !== "") return written;
  const prev = checkProxyUrl(stored);
  if (!prev.ok || prev.url.protocol !== u.protocol || prev.url.host !== u.host) return written;
  u.username = prev.url.username;
  u.password = prev.url.password;
  return u.href.replace(/\/$/, "");
}

export type { ProxyScheme };
