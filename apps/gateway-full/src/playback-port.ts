import type { ClusterSessionSource, SessionControl } from "@svc/admin-api/admin";
import type { PlaybackStack } from "@svc/playback/stack";

/**
 * The admin routes' way to the playback stack. The admin state is opened first (the stack
 * plays its catalog and counts seats in its database), so it is handed this port, and the
 * stack is connected to it once built, before the app serves anything; a call before that
 * is a composition mistake and throws.
 */
export interface PlaybackPort {
  readonly sessions: SessionControl;
  readonly clusterSessions: ClusterSessionSource;
  /** `active_cons` of a playback key (extensions "Connection limits"). */
  readonly keyConnections: (keyId: string) => number;
  connect(stack: PlaybackStack): void;
}

export function createPlaybackPort(): PlaybackPort {
  // The port's one slot, set once by `connect`.
  let connected: PlaybackStack | undefined;
  const stack = (): PlaybackStack => {
    if (connected === undefined) throw new Error("the playback stack is not connected yet");
    return connected;
  };
  return {
    sessions: {
      list: () => stack().sessions.list(),
      warmup: (id) => stack().sessions.warmup(id),
      stop: (id, requestId) => stack().sessions.stop(id, requestId),
      stopForwarded: (id, token) => stack().sessions.stopForwarded(id, token),
    },
    clusterSessions: {
      self: () => stack().cluster.self(),
      live: () => stack().cluster.live(),
    },
    keyConnections: (keyId) => stack().keyConnections.active(keyId),
    connect(s) {
      if (connected !== undefined) throw new Error("the playback stack is connected already");
      connected = s;
    },
  };
}
