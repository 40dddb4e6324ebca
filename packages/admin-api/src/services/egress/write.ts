import { randomBytes } from "node:crypto";
import { routingProblems } from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import { checkRevision } from "../../http/if-match.js";
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

/** A stored profile from a write: credentials merged, revision moved only when it changed. */
export function profileFrom(body: ProfileBody, previous: StoredProfile | undefined): StoredProfile {
  const url = mergeCredential(body.url, previous?.url, body.clear_credential);
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
  return writeAt(store, ifMatch, (doc) => {
    const stored = new Map(doc.proxies.map((p) => [p.id, p]));
    return {
      default: body.default,
      playlist_policy: body.playlist_policy,
      docker_proxy_host: body.docker_proxy_host.trim(),
      proxies: body.proxies.map((p) => profileFrom(p, stored.get(p.id))),
      rules: body.rules.map((r) => ruleFrom(r)),
    };
  });
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
