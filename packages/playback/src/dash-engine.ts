/** Entry `@svc/playback/dash-engine`: runtime sessions and the DASH engine's play-route hook. */

export { decryptingTransforms } from "./cenc/fragment-decryption.js";
export type { PackagerCounters } from "./dash/scheduler/packager-counters.js";
export type {
  FragmentTransform,
  FragmentTransformFactory,
} from "./dash/segmenter/fragment-transform.js";
export {
  createDashLocalIngress,
  type DashLocalIngressOptions,
} from "./sessions/dash-local-ingress.js";
export type { EngineChoice } from "./sessions/engine-choice.js";
export { prepareFfmpegEngine } from "./sessions/ffmpeg/engine-setup.js";
export { dashReadiness } from "./sessions/ffmpeg/readiness.js";
export type { Packager, PackagerContext, PackagerFactory } from "./sessions/packager.js";
export type { SessionMode, SessionStatus, StallTimings } from "./sessions/runtime-session.js";
export {
  channelKeyTable,
  createSessionManager,
  type SessionManager,
  type SessionManagerOptions,
  type SessionOwnership,
  type WarmupResult,
} from "./sessions/session-manager.js";
export type { SessionState } from "./sessions/session-states.js";
