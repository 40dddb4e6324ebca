import { randomBytes } from "node:crypto";
import { checkProxyUrl, isDockerRewritable, routingProblems } from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import { checkRevision } from "../if-match.js";
import {
  mergeCredential,
  routingOf,
  type StoredEgressDocument,
  type StoredProfile,
  type StoredRule,
} from "./egress-document.js";
import type { EgressState, EgressStore } from "./egress-store.js";
import type { DocumentBody, ProfileBody, RuleBody } from "./write-bodies.js";

/** Who still uses a profile through their own binding (a delete would strand them). */
export type BoundChannels = (profileId: string) => readonly string[];

/** Throws 400 naming the first problem of a whole document (spec: single-item writes too). */
export function assertValidDocument(doc: StoredEgressDocument): void {
  const first = routingProblems(routingOf(doc))[0];
  if (first !== undefined)
    throw new GatewayError("invalid_request", `${first.path}: ${first.message}`);
}

/** Spec "Concurrency headers": `If-Match` required on every egress write, missing → 409. */
async function writeAt(
  store: EgressStore,
  ifMatch: string | undefined,
  next: (doc: StoredEgressDocument) => StoredEgressDocument,
): Promise<EgressState> {
  const state = store.current();
  checkRevision(ifMatch, state.revision, { required: true });
  const doc = next(state.document);
  assertValidDocument(doc);
  return store.commit(doc);
}

/**
 * A stored profile from a write: credentials merged, revision moved only when it changed.
 * `keepCredential: false` keeps none of the stored credentials (the written URL's own stay).
 */
export function profileFrom(
  body: ProfileBody,
  previous: StoredProfile | undefined,
  options: { keepCredential?: boolean } = {},
): StoredProfile {
  const stored = options.keepCredential === false ? undefined : previous?.url;
  const url = mergeCredential(body.url, stored, body.clear_credential);
  const unchanged =
    previous !== undefined &&
    previous.url === url &&
    previous.name === body.name &&
    previous.disabled === body.disabled;
  return {
    id: body.id,
    name: body.name,
    url,
    disabled: body.disabled,
    revision: previous === undefined ? 1 : unchanged ? previous.revision : previous.revision + 1,
  };
}

function ruleFrom(body: RuleBody, id?: string): StoredRule {
  return {
    id: id ?? body.id ?? `rule-${randomBytes(4).toString("hex")}`,
    kind: body.kind,
    pattern: body.pattern,
    proxy: body.proxy,
  };
}

/** `PUT /v1/admin/egress`: the whole document replaced; stored credentials kept per profile. */
export async function replaceDocument(
  store: EgressStore,
  ifMatch: string | undefined,
  body: DocumentBody,
): Promise<EgressState> {
  return writeAt(store, ifMatch, (doc) => ({
    default: body.default,
    playlist_policy: body.playlist_policy,
    docker_proxy_host: body.docker_proxy_host.trim(),
    proxies: mergeProfiles(body, doc),
    rules: body.rules.map((r) => ruleFrom(r)),
  }));
}

/**
 * The profiles of a whole-document write (a `PUT` or a connection test's `draft`), stored
 * credentials merged per profile. Issue 30 item 3: in a container a profile on `localhost`,
 * `127.0.0.1` or `::1` is dialled at `docker_proxy_host`, so when that setting changes, the
 * credentials stored for such a profile would be sent to the new host though nobody typed
 * them for it; they are dropped and must be written again. Dropped whether or not this
 * instance runs in a container: the stored document is shared by every instance of a cluster.
 */
export function mergeProfiles(
  body: Pick<DocumentBody, "docker_proxy_host" | "proxies">,
  doc: StoredEgressDocument,
): StoredProfile[] {
  const stored = new Map(doc.proxies.map((p) => [p.id, p]));
  const moved = body.docker_proxy_host.trim() !== doc.docker_proxy_host;
  return body.proxies.map((p) =>
    profileFrom(p, stored.get(p.id), { keepCredential: !(moved && rewritable(p.url)) }),
  );
}

function rewritable(url: string): boolean {
  const checked = checkProxyUrl(url);
  return checked.ok && isDockerRewritable(checked.url.hostname);
}

export async function addProfile(
  store: EgressStore,
  ifMatch: string | undefined,
  body: ProfileBody,
): Promise<EgressState> {
  return writeAt(store, ifMatch, (doc) => {
    if (doc.proxies.some((p) => p.id === body.id))
      throw new GatewayError("conflict", `proxy profile "${body.id}" exists`);
    return { ...doc, proxies: [...doc.proxies, profileFrom(body, undefined)] };
  });
}

export async function replaceProfile(
  store: EgressStore,
  id: string,
  ifMatch: string | undefined,
  body: ProfileBody,
): Promise<EgressState> {
  if (body.id !== id)
    throw new GatewayError("invalid_request", "id: must match the profile in the path");
  return writeAt(store, ifMatch, (doc) => {
    const previous = doc.proxies.find((p) => p.id === id);
    if (previous === undefined) throw new GatewayError("not_found", `no proxy profile "${id}"`);
    return {
      ...doc,
      proxies: doc.proxies.map((p) => (p.id === id ? profileFrom(body, previous) : p)),
    };
  });
}

/**
 * Spec "Egress": deleting a profile removes the rules that reference it and resets `default`
 * to `direct` when it was the default. A profile that channels are bound to is kept (409):
 * they would otherwise lose their route without anyone choosing it (docs/egress.md).
 */
export async function deleteProfile(
  store: EgressStore,
  id: string,
  ifMatch: string | undefined,
  bound: BoundChannels,
): Promise<EgressState> {
  return writeAt(store, ifMatch, (doc) => {
    if (!doc.proxies.some((p) => p.id === id))
      throw new GatewayError("not_found", `no proxy profile "${id}"`);
    const channels = bound(id);
    if (channels.length > 0) {
      const list = channels.slice(0, 10).join(", ");
      throw new GatewayError(
        "conflict",
        `proxy profile "${id}" is bound to channels: ${list}${channels.length > 10 ? ", …" : ""}`,
      );
    }
    return {
      ...doc,
      default: doc.default === id ? "direct" : doc.default,
      proxies: doc.proxies.filter((p) => p.id !== id),
      rules: doc.rules.filter((r) => r.proxy !== id),
    };
  });
}

export async function addRule(
  store: EgressStore,
  ifMatch: string | undefined,
  body: RuleBody,
): Promise<{ state: EgressState; rule: StoredRule }> {
  const rule = ruleFrom(body);
  const state = await writeAt(store, ifMatch, (doc) => {
    if (doc.rules.some((r) => r.id === rule.id))
      throw new GatewayError("conflict", `rule "${rule.id}" exists`);
    return { ...doc, rules: [...doc.rules, rule] };
  });
  return { state, rule };
}

export async function replaceRule(
  store: EgressStore,
  id: string,
  ifMatch: string | undefined,
  body: RuleBody,
): Promise<EgressState> {
  if (body.id !== undefined && body.id !== id)
    throw new GatewayError("invalid_request", "id: must match the rule in the path");
  return writeAt(store, ifMatch, (doc) => {
    if (!doc.rules.some((r) => r.id === id)) throw new GatewayError("not_found", `no rule "${id}"`);
    return { ...doc, rules: doc.rules.map((r) => (r.id === id ? ruleFrom(body, id) : r)) };
  });
}

export async function deleteRule(
  store: EgressStore,
  id: string,
  ifMatch: string | undefined,
): Promise<EgressState> {
  return writeAt(store, ifMatch, (doc) => {
    if (!doc.rules.some((r) => r.id === id)) throw new GatewayError("not_found", `no rule "${id}"`);
    return { ...doc, rules: doc.rules.filter((r) => r.id !== id) };
  });
}
