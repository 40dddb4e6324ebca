import type { PlaybackKeyRecord } from "../playback-keys/key-store.js";
import type { ConnectionFigures } from "./player-api.js";

/**
 * `user_info.max_connections` and `active_cons` of a key: the one place that reads them.
 * Until playback keys carry `max_connections` (extensions.md "Connection limits"), a key has
 * no limit ("0", Xtream's "unlimited") and no counted streams.
 */
export function connectionFigures(_key: PlaybackKeyRecord): ConnectionFigures {
  return { max: null, active: 0 };
}
