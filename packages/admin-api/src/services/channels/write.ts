import { type ChannelCatalog, type FallbackSource, resolveChannelSource } from "@svc/core/catalog";
import { checkChannelSource, checkFallbackSources } from "@svc/core/config";
import { type CarryMode, carrySecrets, DIRECT, sourceOrigin } from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import type { StoredChannel } from "../../storage/channels/stored-channel.js";
import type { StoredProfile } from "../egress/egress-document.js";
import type { EgressStore } from "../egress/egress-store.js";
import { assertValidDocument, profileFrom } from "../egress/write.js";
import { checkRevision } from "../if-match.js";
import type { ChannelStore } from "./channel-store.js";
import type { ChannelWrite } from "./write-body.js";

/** What a channel write needs beyond the channel store: the egress document. */
export interface ChannelWriteDeps {
  readonly egress: EgressStore;
}

/** A channel about to be written and, with `new_proxy`, the profile to create with it. */
interface BuiltChannel {
  readonly channel: StoredChannel;
  readonly newProfile?: StoredProfile;
  /** Stored secrets the write left behind because the source changed origin (issue 30). */
  readonly droppedSecrets: readonly string[];
}

function resolveEgress(
  deps: ChannelWriteDeps,
  body: ChannelWrite,
  previous: StoredChannel | undefined,
): Pick<StoredChannel, "egress_mode" | "egress_profile_id"> & { newProfile?: StoredProfile } {
  if (body.egress === undefined) {
    return {
      egress_mode: previous?.egress_mode ?? ("auto" as const),
      egress_profile_id: previous?.egress_profile_id ?? null,
    };
  }
  const e = body.egress;
  const doc = deps.egress.current().document;
  if (e.new_proxy !== undefined) {
    if (e.profile_id !== undefined && e.profile_id !== null && e.profile_id !== "") {
      throw new GatewayError(
        "invalid_request",
        "egress: new_proxy cannot be combined with profile_id",
      );
    }
    // Spec "Channels": `new_proxy` creates a profile inline and binds the channel to it.
    const id = e.new_proxy.id ?? freeProfileId(body.id, doc.proxies);
    if (doc.proxies.some((p) => p.id === id))
      throw new GatewayError(
        "invalid_request",
        `egress.new_proxy.id: proxy profile "${id}" exists`,
      );
    const newProfile = profileFrom(
      {
        id,
        name: e.new_proxy.name || `${body.title} (${body.id})`,
        url: e.new_proxy.url,
        disabled: false,
        clear_credential: false,
      },
      undefined,
    );
    try {
      assertValidDocument({ ...doc, proxies: [...doc.proxies, newProfile] });
    } catch (err) {
      if (err instanceof GatewayError)
        throw new GatewayError(
          "invalid_request",
          `egress.new_proxy: ${err.message.replace(/^proxies\[\d+\]\./, "")}`,
        );
      throw err;
    }
    return { egress_mode: "profile", egress_profile_id: id, newProfile };
  }
  if (e.mode !== "profile") return { egress_mode: e.mode, egress_profile_id: null };
  const id = e.profile_id ?? "";
  const profile = doc.proxies.find((p) => p.id === id);
  if (profile === undefined)
    throw new GatewayError("invalid_request", `egress.profile_id: unknown proxy profile "${id}"`);
  if (profile.disabled)
    throw new GatewayError(
      "invalid_request",
      `egress.profile_id: proxy profile "${id}" is disabled`,
    );
  return { egress_mode: "profile" as const, egress_profile_id: id };
}

/** `ch-<channel id>`, with a numeric suffix when taken. */
function freeProfileId(channelId: string, proxies: readonly StoredProfile[]): string {
  const taken = new Set(proxies.map((p) => p.id));
  const base = `ch-${channelId}`.slice(0, 60);
  if (!taken.has(base) && base.toLowerCase() !== DIRECT) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

function buildChannel(
  deps: ChannelWriteDeps,
  store: ChannelStore,
  body: ChannelWrite,
  previous: StoredChannel | undefined,
): BuiltChannel {
  const source = checkChannelSource(body);
  if (source !== undefined)
    throw new GatewayError("invalid_request", `${source.path}: ${source.message}`);
  if (body.upstream !== "" && store.upstream(body.upstream) === undefined) {
    throw new GatewayError("invalid_request", `upstream: unknown upstream "${body.upstream}"`);
  }
  const fallback = checkFallbackSources(body.fallback_sources);
  if (fallback !== undefined)
    throw new GatewayError("invalid_request", `${fallback.path}: ${fallback.message}`);
  body.fallback_sources.forEach((f, i) => {
    if (f.upstream !== "" && store.upstream(f.upstream) === undefined)
      throw new GatewayError(
        "invalid_request",
        `fallback_sources[${i}].upstream: unknown upstream "${f.upstream}"`,
      );
  });
  const { egress: _egress, m3u_source: _owner, ...fields } = body;
  const { newProfile, ...binding } = resolveEgress(deps, body, previous);
  // Spec "Channel": a blank value keeps the stored one, but a secret only while the source
  // stays on its origin (issue 30 item 2; docs/admin-api.md "Secrets and the source origin").
  const secrets = carrySecrets({
    from: previous === undefined ? undefined : sourceOrigin(resolveChannelSource(previous, store)),
    to: sourceOrigin(resolveChannelSource(body, store)),
    stored: { headers: previous?.headers ?? {}, keys: previous?.keys ?? {} },
    written: { headers: body.headers, keys: body.keys },
    mode: "replace",
  });
  const fallbacks = carryFallbackSecrets(
    store,
    previous?.fallback_sources ?? [],
    body.fallback_sources,
  );
  const channel: StoredChannel = {
    ...fields,
    headers: secrets.headers,
    keys: secrets.keys,
    fallback_sources: fallbacks.sources,
    ...binding,
    revision: previous === undefined ? 1 : previous.revision + 1,
    updated_at: Date.now(),
    // An operator's write keeps the channel's M3U provider source (docs/m3u-sources.md).
    ...(previous?.m3u_source ? { m3u_source: previous.m3u_source } : {}),
    ...(previous?.m3u_synced ? { m3u_synced: previous.m3u_synced } : {}),
  };
  const built = { channel, droppedSecrets: [...secrets.dropped, ...fallbacks.dropped] };
  return newProfile === undefined ? built : { ...built, newProfile };
}

/**
 * The same rule for each fallback source: a blank sensitive header keeps the value stored
 * for the same source (same `source_url`, or `upstream` and `path`), else for the source at
 * that index, only while the written source is on that stored source's origin (issue 30
 * item 2; extensions "Fallback sources and the slate"). Matching the same source first lets
 * a reorder keep the secrets. The M3U import passes `merge`: headers its entry does not
 * state are kept, as for the primary source.
 */
export function carryFallbackSecrets(
  catalog: Pick<ChannelCatalog, "upstream">,
  stored: readonly FallbackSource[],
  written: readonly FallbackSource[],
  mode: CarryMode = "replace",
): { sources: FallbackSource[]; dropped: string[] } {
  const dropped: string[] = [];
  const sameSource = (a: FallbackSource, b: FallbackSource) =>
    a.source_url === b.source_url && a.upstream === b.upstream && a.path === b.path;
  const sources = written.map((w, i) => {
    const was = stored.find((s) => sameSource(s, w)) ?? stored[i];
    const carried = carrySecrets({
      from: was === undefined ? undefined : sourceOrigin(resolveChannelSource(was, catalog)),
      to: sourceOrigin(resolveChannelSource(w, catalog)),
      stored: { headers: was?.headers ?? {}, keys: {} },
      written: { headers: w.headers, keys: {} },
      mode,
    });
    for (const d of carried.dropped) dropped.push(`fallback_sources[${i}].${d}`);
    return { ...w, headers: carried.headers };
  });
  return { sources, dropped };
}

/** Commits the inline profile (a new egress revision) and then the channel. */
async function commitBuilt(
  deps: ChannelWriteDeps,
  store: ChannelStore,
  built: BuiltChannel,
): Promise<void> {
  if (built.newProfile !== undefined) {
    const doc = deps.egress.current().document;
    await deps.egress.commit({ ...doc, proxies: [...doc.proxies, built.newProfile] });
  }
  await store.commit({ put: [built.channel] });
}

/**
 * A write body checked exactly like a create (source, upstream, egress binding) but not
 * stored: what `POST /v1/admin/source-probes` probes. Nothing stored is merged in, so a blank
 * header or key value is dropped rather than filled from a channel of the same id.
 * An inline `new_proxy` is returned as `newProfile`, not created.
 * @example const { channel } = draftChannel({ egress: ctx.egressConfig }, ctx.channels, { ...body, id: body.id ?? "" });
 */
export function draftChannel(
  deps: ChannelWriteDeps,
  store: ChannelStore,
  body: ChannelWrite,
): BuiltChannel {
  return buildChannel(deps, store, body, undefined);
}

/**
 * Spec "Channels": `{ok, id, egress_profile_id}`; `dropped_secrets` is added only when a
 * write left stored secrets behind, so the spec's shape stays exact otherwise.
 */
function writeResponse(built: BuiltChannel) {
  const c = built.channel;
  return {
    ok: true as const,
    id: c.id,
    egress_profile_id: c.egress_profile_id,
    ...(built.droppedSecrets.length > 0 ? { dropped_secrets: built.droppedSecrets } : {}),
  };
}

/** `POST /v1/admin/channels`: a taken id is 409. */
export async function createChannel(
  deps: ChannelWriteDeps,
  store: ChannelStore,
  body: ChannelWrite,
) {
  if (store.get(body.id) !== undefined)
    throw new GatewayError("conflict", `channel "${body.id}" exists`);
  const built = buildChannel(deps, store, body, undefined);
  await commitBuilt(deps, store, built);
  return writeResponse(built);
}

export function existingChannel(store: ChannelStore, id: string): StoredChannel {
  const c = store.get(id);
  if (c === undefined) throw new GatewayError("not_found", `no channel "${id}"`);
  return c;
}

/** `PUT /v1/admin/channels/{id}`: full replacement; `If-Match` validated when supplied. */
export async function replaceChannel(
  deps: ChannelWriteDeps,
  store: ChannelStore,
  id: string,
  ifMatch: string | undefined,
  body: ChannelWrite,
) {
  const previous = existingChannel(store, id);
  checkRevision(ifMatch, previous.revision, { required: false });
  if (body.id !== id)
    throw new GatewayError("invalid_request", "id: must match the channel in the path");
  const built = buildChannel(deps, store, body, previous);
  await commitBuilt(deps, store, built);
  return writeResponse(built);
}

/** `DELETE /v1/admin/channels/{id}`; `If-Match` validated when supplied. */
export async function deleteChannel(store: ChannelStore, id: string, ifMatch: string | undefined) {
  const previous = existingChannel(store, id);
  checkRevision(ifMatch, previous.revision, { required: false });
  await store.commit({ remove: [id] });
  return { ok: true as const, id };
}
