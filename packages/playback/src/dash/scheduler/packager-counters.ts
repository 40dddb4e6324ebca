/**
 * The `packager` block of a runtime session's status (spec "Runtime session": the
 * contents are ours to define; documented in docs/sessions.md).
 */
export interface PackagerCounters {
  segments_published: number;
  parts_published: number;
  /** Media bytes read from the origin (MPD and time source excluded). */
  bytes_in: number;
  /** Media and playlist bytes written to players. */
  bytes_out: number;
  fetch_errors: number;
  retries: number;
  mpd_refreshes: number;
  /** Refreshes that found the MPD unchanged (304, or the same document): not parsed again. */
  mpd_unchanged: number;
  /** Media sequence number of the newest complete segment of the first rendition; -1 before any. */
  media_sequence: number;
  /** Origin clock minus the wall-clock end of the newest published media (ms); -1 before any. */
  live_edge_delay_ms: number;
  /** Bytes of media held in memory by the publication window. */
  bytes_held: number;
}

export function createPackagerCounters(): PackagerCounters {
  return {
    segments_published: 0,
    parts_published: 0,
    bytes_in: 0,
    bytes_out: 0,
    fetch_errors: 0,
    retries: 0,
    mpd_refreshes: 0,
    mpd_unchanged: 0,
    media_sequence: -1,
    live_edge_delay_ms: -1,
    bytes_held: 0,
  };
}
