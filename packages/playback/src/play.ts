/** Entry `@svc/playback/play`: the play routes, their runtime and the credential seam. */

export {
  type ClusterViewerLeases,
  createClusterViewerLeases,
  SEAT_FLUSH_MS,
  type ViewerSeat,
  type ViewerSeatStore,
} from "./hls/cluster-viewer-leases.js";
export { createPlaylistFastLane } from "./hls/playlist-fast-lane.js";
export { LEASE_TTL_MS, type LeaseOutcome, type ViewerLeases } from "./hls/viewer-leases.js";
export { jwtPlayGrant, type PlayGrant, type ResolveGrant } from "./play-grant.js";
export {
  createPlayRoutes,
  type PlayRouteFamily,
  playRouteFamily,
  playRoutes,
} from "./play-routes.js";
export {
  createPlaybackRuntime,
  type LocalIngress,
  type PlaybackRuntime,
  type PlaybackRuntimeOptions,
  type PlayRequest,
} from "./playback-runtime.js";
export type { PlaybackStats } from "./playback-stats.js";
export { resolveUrlSigningKey } from "./signing-key.js";
