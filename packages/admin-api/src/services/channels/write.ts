import { checkChannelSource, type GatewayConfig } from "@svc/core/config";
import { GatewayError } from "@svc/core/errors";
import { checkRevision } from "../../http/if-match.js";
import type { ChannelStore } from "./channel-store.js";
import type { StoredChannel } from "./stored-channel.js";
import type { ChannelWrite } from "./write-body.js";

/** A blank value keeps the stored one (spec "Channel": blanked sensitive headers). */
function mergeBlank(
  written: Readonly<Record<string, string>>,
  stored: Readonly<Record<string, string>>,
  caseless: boolean,
): Record<string, string> {
  const find = (name: string) => {
    if (stored[name] !== undefined) return stored[name];
    if (!caseless) return undefined;
    const key = Object.keys(stored).find((k) => k.toLowerCase() === name.toLowerCase());
    return key === undefined ? undefined : stored[key];
  };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(written)) {
    const value = v === "" ? find(k) : v;
    if (value !== undefined && value !== "") out[k] = value;
  }
  return out;
}

function resolveEgress(
  config: GatewayConfig,
  body: ChannelWrite,
  previous: StoredChannel | undefined,
) {
  if (body.egress === undefined) {
    return {
      egress_mode: previous?.egress_mode ?? ("auto" as const),
      egress_profile_id: previous?.egress_profile_id ?? null,
    };
  }
  const e = body.egress;
  if (e.new_proxy !== undefined) {
    if (e.profile_id !== undefined && e.profile_id !== null && e.profile_id !== "") {
      throw new GatewayError(
        "invalid_request",
        "egress: new_proxy cannot be combined with profile_id",
      );
    }
    throw new GatewayError(
      "invalid_request",
      "egress.new_proxy: inline proxy profiles are not available in this build",
    );
  }
  if (e.mode !== "profile") return { egress_mode: e.mode, egress_profile_id: null };
  const id = e.profile_id ?? "";
  const profile = config.egress.proxies.find((p) => p.id === id);
  if (profile === undefined)
    throw new GatewayError("invalid_request", `egress.profile_id: unknown proxy profile "${id}"`);
  if (profile.disabled)
    throw new GatewayError(
      "invalid_request",
      `egress.profile_id: proxy profile "${id}" is disabled`,
    );
  return { egress_mode: "profile" as const, egress_profile_id: id };
}

function buildChannel(
  config: GatewayConfig,
  store: ChannelStore,
  body: ChannelWrite,
  previous: StoredChannel | undefined,
): StoredChannel {
  const source = checkChannelSource(body);
  if (source !== undefined)
    throw new GatewayError("invalid_request", `${source.path}: ${source.message}`);
  if (body.upstream !== "" && store.upstream(body.upstream) === undefined) {
    throw new GatewayError("invalid_request", `upstream: unknown upstream "${body.upstream}"`);
  }
  const { egress: _egress, ...fields } = body;
  return {
    ...fields,
    headers: mergeBlank(body.headers, previous?.headers ?? {}, true),
    keys: mergeBlank(body.keys, previous?.keys ?? {}, false),
    ...resolveEgress(config, body, previous),
    revision: previous === undefined ? 1 : previous.revision + 1,
    updated_at: Date.now(),
  };
}

/**
 * A write body checked exactly like a create (source, upstream, egress binding) but not
 * stored: what `POST /v1/admin/source-probes` probes. Nothing stored is merged in, so a blank
 * header or key value is dropped rather than filled from a channel of the same id.
 * @example const draft = draftChannel(ctx.config, ctx.channels, { ...body, id: body.id ?? "" });
 */
export function draftChannel(
  config: GatewayConfig,
  store: ChannelStore,
  body: ChannelWrite,
): StoredChannel {
  return buildChannel(config, store, body, undefined);
}

function writeResponse(c: StoredChannel) {
  return { ok: true as const, id: c.id, egress_profile_id: c.egress_profile_id };
}

/** `POST /v1/admin/channels`: a taken id is 409. */
export function createChannel(config: GatewayConfig, store: ChannelStore, body: ChannelWrite) {
  if (store.get(body.id) !== undefined)
    throw new GatewayError("conflict", `channel "${body.id}" exists`);
  const channel = buildChannel(config, store, body, undefined);
  store.commit({ put: [channel] });
  return writeResponse(channel);
}

export function existingChannel(store: ChannelStore, id: string): StoredChannel {
  const c = store.get(id);
  if (c === undefined) throw new GatewayError("not_found", `no channel "${id}"`);
  return c;
}

/** `PUT /v1/admin/channels/{id}`: full replacement; `If-Match` validated when supplied. */
export function replaceChannel(
  config: GatewayConfig,
  store: ChannelStore,
  id: string,
  ifMatch: string | undefined,
  body: ChannelWrite,
) {
  const previous = existingChannel(store, id);
  checkRevision(ifMatch, previous.revision, { required: false });
  if (body.id !== id)
    throw new GatewayError("invalid_request", "id: must match the channel in the path");
  const channel = buildChannel(config, store, body, previous);
  store.commit({ put: [channel] });
  return writeResponse(channel);
}

/** `DELETE /v1/admin/channels/{id}`; `If-Match` validated when supplied. */
export function deleteChannel(store: ChannelStore, id: string, ifMatch: string | undefined) {
  const previous = existingChannel(store, id);
  checkRevision(ifMatch, previous.revision, { required: false });
  store.commit({ remove: [id] });
  return { ok: true as const, id };
}
