import type { ChannelLease, ChannelLeaseRepository } from "./repository.js";

/**
 * The leases of the embedded single-instance build: nobody else packages, so every
 * acquisition succeeds (the generation still counts up, as in a cluster). Held in
 * memory: a restart starts every channel afresh anyway.
 */
export function singleInstanceLeases(): ChannelLeaseRepository {
  const leases = new Map<string, ChannelLease>();
  const live = (l: ChannelLease | undefined, now: number) =>
    l !== undefined && l.expiresAt > now ? { lease: l, ttlLeftMs: l.expiresAt - now } : undefined;
  return {
    async acquire(channelId, holder, ttlMs) {
      const now = Date.now();
      const lease: ChannelLease = {
        channelId,
        ownerId: holder.id,
        ownerUrl: holder.url,
        generation: (leases.get(channelId)?.generation ?? 0) + 1,
        expiresAt: now + ttlMs,
        renewedAt: now,
      };
      leases.set(channelId, lease);
      return { kind: "acquired", lease, ttlLeftMs: ttlMs };
    },
    async renew(holder, asked, ttlMs) {
      const now = Date.now();
      const kept: string[] = [];
      for (const { channelId, generation } of asked) {
        const l = leases.get(channelId);
        if (l?.ownerId !== holder.id || l.generation !== generation) continue;
        leases.set(channelId, { ...l, expiresAt: now + ttlMs, renewedAt: now });
        kept.push(channelId);
      }
      return kept;
    },
    async release(holder, channelId, generation) {
      const l = leases.get(channelId);
      if (l?.ownerId === holder.id && l.generation === generation)
        leases.set(channelId, { ...l, expiresAt: 0 });
    },
    async current(channelId) {
      return live(leases.get(channelId), Date.now());
    },
    async live() {
      const now = Date.now();
      return [...leases.values()]
        .map((l) => live(l, now))
        .filter((v) => v !== undefined)
        .sort((a, b) => a.lease.channelId.localeCompare(b.lease.channelId));
    },
  };
}
