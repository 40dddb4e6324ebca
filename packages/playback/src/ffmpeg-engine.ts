/**
 * Entry `@svc/playback/ffmpeg-engine`: the compatibility engine's parts on their own,
 * for tools and the black-box tests that drive ffmpeg sessions without a gateway.
 * The gateways use it through `@svc/playback/dash-engine`.
 */

export {
  checkFfmpeg,
  createFfmpegChecker,
  type FfmpegStatus,
} from "./sessions/ffmpeg/ffmpeg-check.js";
export type {
  FfmpegSessionOptions,
  FfmpegSessionStatus,
} from "./sessions/ffmpeg/ffmpeg-session-types.js";
export { type FfmpegSession, startFfmpegSession } from "./sessions/ffmpeg/ffmpeg-supervisor.js";
export { type ReapReport, reapOrphans } from "./sessions/ffmpeg/reap-orphans.js";
export { serveSessionFile } from "./sessions/ffmpeg/serve-session-file.js";
export { stopAllFfmpegSessions } from "./sessions/ffmpeg/shutdown-registry.js";
