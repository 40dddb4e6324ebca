/**
 * The counters of spec `GET /v1/status` (`bytes_in`, `bytes_out`, `requests`,
 * `errors`), fed by the play routes. `bytes_in` counts upstream body bytes read,
 * `bytes_out` body bytes written to players, `errors` play requests answered
 * with a 5xx or cut off by an upstream failure.
 */
export interface PlaybackStats {
  bytesIn: number;
  bytesOut: number;
  requests: number;
  errors: number;
  /**
   * Source failovers by reason (extensions "Fallback sources and the slate"), for
   * `svc_failovers_total{reason}`; not part of the spec's `/v1/status` counters.
   */
  readonly failovers: Map<string, number>;
  snapshot(): { bytes_in: number; bytes_out: number; requests: number; errors: number };
}

export function createPlaybackStats(): PlaybackStats {
  return {
    bytesIn: 0,
    bytesOut: 0,
    requests: 0,
    errors: 0,
    failovers: new Map(),
    snapshot() {
      return {
        bytes_in: this.bytesIn,
        bytes_out: this.bytesOut,
        requests: this.requests,
        errors: this.errors,
      };
    },
  };
}
