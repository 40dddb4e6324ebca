import type { ChannelLeaseStore } from "@svc/playback/cluster";

/**
 * The real lease store of an instance, with its database calls failing while `cut.on` is
 * set: an instance cut off from PostgreSQL (fault injection around the real store; the
 * store and the database stay real).
 */
export function reachable(store: ChannelLeaseStore, cut: { on: boolean }): ChannelLeaseStore {
  const gate = () => {
    if (cut.on) throw new Error("connection terminated unexpectedly");
  };
  return {
    acquire: async (...a) => {
      gate();
      return store.acquire(...a);
    },
    renew: async (...a) => {
      gate();
      return store.renew(...a);
    },
    release: async (...a) => {
      gate();
      return store.release(...a);
    },
    current: async (...a) => {
      gate();
      return store.current(...a);
    },
    live: async () => {
      gate();
      return store.live();
    },
  };
}
