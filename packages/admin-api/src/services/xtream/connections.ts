import type { PlaybackKeyRecord } from "../playback-keys/key-store.js";
import type { ConnectionFigures } from "./player-api.js";

/**
 * `user_info.max_connections` and `active_cons` of a key (extensions.md "Connection
 * limits"): its `max_connections` (null: no limit) and the streams open under it, as
 * `active` counts them (the playback stack's seats; absent: none counted).
 */
export function connectionFigures(
  key: PlaybackKeyRecord,
  active: ((keyId: string) => number) | undefined,
): ConnectionFigures {
  return { max: key.maxConnections, active: active?.(key.id) ?? 0 };
}
