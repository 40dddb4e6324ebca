import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LeaseView } from "@svc/playback/cluster";
import type { RuntimeSessionView } from "./cluster-sessions.js";
import { mergeClusterSessions } from "./cluster-sessions.js";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const SELF = { id: "a1", url: "http://10.0.0.1:8080" };

const session = (channel_id: string): RuntimeSessionView => ({
  channel_id,
  mode: "on_demand",
  engine: "native",
  pack_mode: "cmaf",
  fallback_reason: null,
  started_at: "2026-03-01T11:00:00Z",
  last_touch: "2026-03-01T11:59:59Z",
  state: "running",
  errors: 0,
  last_error: null,
});

const lease = (
  channelId: string,
  ownerId: string,
  generation: number,
  expiresIn = 10_000,
): LeaseView => ({
  lease: {
    channelId,
    ownerId,
    ownerUrl: `http://${ownerId}.internal:8080`,
    generation,
    // The database's clock runs 7 s ahead of this instance's: only differences count.
    expiresAt: NOW + 7_000 + expiresIn,
    renewedAt: NOW + 7_000 - 2_000,
  },
  ttlLeftMs: expiresIn,
});

describe("mergeClusterSessions (/v1/status in cluster mode)", () => {
  it("lists own sessions with this instance as owner and the others' leases as remote entries", () => {
    const merged = mergeClusterSessions(
      [session("news"), session("local-only")],
      [lease("news", "a1", 4), lease("sports", "b2", 7), lease("movies", "c3", 1)],
      SELF,
      NOW,
    );
    assert.deepEqual(merged, [
      {
        ...session("local-only"),
        owner: "a1",
        owner_url: SELF.url,
        lease_generation: null,
        lease_expires_at: null,
      },
      {
        channel_id: "movies",
        owner: "c3",
        owner_url: "http://c3.internal:8080",
        lease_generation: 1,
        lease_expires_at: "2026-03-01T12:00:10Z",
        state: "remote",
        mode: null,
        engine: null,
        pack_mode: null,
        fallback_reason: null,
        started_at: null,
        last_touch: "2026-03-01T11:59:58Z",
        errors: null,
        last_error: null,
        generation: null,
        packager: null,
      },
      {
        ...session("news"),
        owner: "a1",
        owner_url: SELF.url,
        lease_generation: 4,
        lease_expires_at: "2026-03-01T12:00:10Z",
      },
      {
        channel_id: "sports",
        owner: "b2",
        owner_url: "http://b2.internal:8080",
        lease_generation: 7,
        lease_expires_at: "2026-03-01T12:00:10Z",
        state: "remote",
        mode: null,
        engine: null,
        pack_mode: null,
        fallback_reason: null,
        started_at: null,
        last_touch: "2026-03-01T11:59:58Z",
        errors: null,
        last_error: null,
        generation: null,
        packager: null,
      },
    ]);
  });

  it("shows a channel once, as its live lease says; expired leases and own leases without a session are left out", () => {
    const merged = mergeClusterSessions(
      // This instance still winds down "news", which b2 took over.
      [session("news")],
      [lease("news", "b2", 9), lease("gone", "c3", 2, -1), lease("idle", "a1", 3)],
      SELF,
      NOW,
    );
    assert.deepEqual(
      merged.map((s) => [s.channel_id, s.owner, s.state, s.lease_generation]),
      [["news", "b2", "remote", 9]],
    );
  });
});
