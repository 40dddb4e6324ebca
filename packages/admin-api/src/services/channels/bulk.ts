import { GatewayError } from "@svc/core/errors";
import type { StoredChannel } from "../../storage/channels/stored-channel.js";
import type { ChannelStore } from "./channel-store.js";

/** `POST …/enable-all` and `…/disable-all`: `{ok, changed, channel_ids}` of the channels that moved. */
export async function setAllDisabled(store: ChannelStore, disabled: boolean) {
  const now = Date.now();
  const changed: StoredChannel[] = store
    .list()
    .filter((c) => c.disabled !== disabled)
    .map((c) => ({ ...c, disabled, revision: c.revision + 1, updated_at: now }));
  if (changed.length > 0) await store.commit({ put: changed });
  return { ok: true as const, changed: changed.length, channel_ids: changed.map((c) => c.id) };
}

/**
 * `PUT /v1/admin/channels/reorder`: `ids` in their new order, each with the
 * revision the caller saw (`revisions` missing or stale: 409). Listed channels
 * take sort orders 0..n-1, unlisted ones follow in their current order.
 */
export async function reorderChannels(
  store: ChannelStore,
  ids: readonly string[],
  revisions: Readonly<Record<string, number>> | undefined,
) {
  if (revisions === undefined) throw new GatewayError("conflict", "revisions: required");
  if (new Set(ids).size !== ids.length)
    throw new GatewayError("invalid_request", "ids: duplicate id");
  for (const id of ids) {
    const c = store.get(id);
    if (c === undefined) throw new GatewayError("invalid_request", `ids: unknown channel "${id}"`);
    const seen = revisions[id];
    if (seen === undefined)
      throw new GatewayError("conflict", `revisions: missing revision for "${id}"`);
    if (seen !== c.revision) {
      throw new GatewayError(
        "conflict",
        `revision mismatch for "${id}": current revision is ${c.revision}`,
      );
    }
  }
  const listed = new Set(ids);
  const order = [
    ...ids,
    ...store
      .list()
      .filter((c) => !listed.has(c.id))
      .map((c) => c.id),
  ];
  const now = Date.now();
  const changed: StoredChannel[] = [];
  order.forEach((id, index) => {
    const c = store.get(id)!;
    if (c.sort_order !== index)
      changed.push({ ...c, sort_order: index, revision: c.revision + 1, updated_at: now });
  });
  if (changed.length > 0) await store.commit({ put: changed });
  const revisionsAfter = Object.fromEntries(order.map((id) => [id, store.get(id)!.revision]));
  return {
    ok: true as const,
    changed: changed.length,
    channel_ids: order,
    revisions: revisionsAfter,
  };
}
