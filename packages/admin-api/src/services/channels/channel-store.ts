import { type ChannelCatalog, compareChannels, type Upstream } from "@svc/core/catalog";
import { GatewayError } from "@svc/core/errors";
import type { ChannelRepository } from "../../storage/channels/repository.js";
import type { StoredChannel } from "./stored-channel.js";

/**
 * The full build's catalog: channels in the state database, mirrored in memory
 * so playback reads (`get`, `list`, `upstream`) never wait on the database.
 * Every write commits first (one transaction) and then swaps the in-memory list.
 */
export interface ChannelStore extends ChannelCatalog {
  get(id: string): StoredChannel | undefined;
  list(): readonly StoredChannel[];
  /**
   * Commits the given inserts/replacements and deletions in one transaction. Each put
   * carries its next revision (stored + 1, or 1 when new); a deletion is of the revision
   * in memory. A channel another instance changed meanwhile makes the whole change a 409
   * (nothing stored), and the mirror is reloaded so a retry sees the stored revisions.
   */
  commit(change: { put?: readonly StoredChannel[]; remove?: readonly string[] }): Promise<void>;
  /** Replaces the mirror with the stored catalog (another instance wrote; idempotent). */
  reload(): Promise<void>;
}

/** Loads the stored catalog into memory. */
export async function createChannelStore(
  repository: ChannelRepository,
  upstreams: readonly Upstream[],
): Promise<ChannelStore> {
  let byId = new Map<string, StoredChannel>();
  let sorted: StoredChannel[] = [];
  const resort = () => {
    sorted = [...byId.values()].sort(compareChannels);
  };
  const reload = async () => {
    const loaded = await repository.loadAll();
    byId = new Map(loaded.map((c) => [c.id, c]));
    resort();
  };
  await reload();
  const upstreamById = new Map(upstreams.map((u) => [u.id, u]));
  return {
    get: (id) => byId.get(id),
    list: () => sorted,
    upstream: (id) => upstreamById.get(id),
    async commit({ put = [], remove = [] }) {
      const removals = remove.flatMap((id) => {
        const c = byId.get(id);
        return c === undefined ? [] : [{ id, revision: c.revision }];
      });
      try {
        await repository.commit({ put, remove: removals });
      } catch (err) {
        // The 409 stands even when the reload fails; the change feed reloads later.
        if (err instanceof GatewayError && err.code === "conflict") await reload().catch(() => {});
        throw err;
      }
      for (const c of put) byId.set(c.id, c);
      for (const id of remove) byId.delete(id);
      resort();
    },
    reload,
  };
}
