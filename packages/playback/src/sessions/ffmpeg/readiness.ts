import type { EngineName } from "../../dash/inspection/inspection-model.js";
import type { FfmpegStatus } from "./ffmpeg-check.js";

/** The channel fields readiness looks at. */
export interface ReadinessChannel {
  readonly id: string;
  readonly ingress: "hls" | "dash";
  readonly disabled: boolean;
}

/** `/readyz` answer: status and exact body (spec "Errors" shape for 503). */
export type ReadinessAnswer =
  | { status: 200; body: { status: "ready" } }
  | { status: 503; body: { error: { code: "not_ready"; message: string } } };

/**
 * Spec `/readyz`: 503 `not_ready` when any enabled DASH channel resolves to the FFmpeg
 * compatibility engine and ffmpeg is not runnable; otherwise `{status: "ready"}`.
 * `engineFor` says which engine a channel resolves to (the channel's `engine`, or for
 * `auto` the last inspection's verdict). The message names neither channels nor paths:
 * the endpoint is public.
 * @example readiness(catalog.list(), (c) => sessions.engineOf(c.id), await checkFfmpeg(config.media.ffmpeg_path))
 */
export function readiness<C extends ReadinessChannel>(
  channels: readonly C[],
  engineFor: (channel: C) => EngineName | undefined,
  ffmpeg: FfmpegStatus,
): ReadinessAnswer {
  if (ffmpeg.ok) return { status: 200, body: { status: "ready" } };
  const needing = channels.filter(
    (c) => c.ingress === "dash" && !c.disabled && engineFor(c) === "ffmpeg",
  ).length;
  if (needing === 0) return { status: 200, body: { status: "ready" } };
  return {
    status: 503,
    body: {
      error: {
        code: "not_ready",
        message: `ffmpeg is not runnable and ${needing} DASH channel(s) need the compatibility engine`,
      },
    },
  };
}
