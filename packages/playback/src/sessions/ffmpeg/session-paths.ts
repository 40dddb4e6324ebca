import { join } from "node:path";
import { CHANNEL_ID_PATTERN } from "@svc/core/catalog";

/** Where every session folder and pidfile lives: `{data_dir}/sessions/`. */
export function sessionsRoot(dataDir: string): string {
  return join(dataDir, "sessions");
}

/**
 * Folder of pidfiles of running ffmpeg processes, `{data_dir}/sessions/.pids/`. No channel
 * folder can be named `.pids`: {@link channelFolderName} escapes leading dots.
 */
export function pidfileDir(dataDir: string): string {
  return join(sessionsRoot(dataDir), ".pids");
}

/**
 * The folder name of a channel. Channel ids are `[A-Za-z0-9._-]{1,64}` (operator contract),
 * which admits `.`, `..` and `.pids`; leading dots are written as `%2E` (`%` never occurs in
 * an id, so the mapping stays one-to-one) and the folder can never leave `sessions/`.
 */
export function channelFolderName(channelId: string): string {
  const dots = /^\.+/.exec(channelId)?.[0].length ?? 0;
  return "%2E".repeat(dots) + channelId.slice(dots);
}

const GENERATION = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `{data_dir}/sessions/<channel>/<generation>/`, or an error for an id or generation that
 * could not name a folder safely.
 * @example sessionDir("/var/lib/svc", "news", 7) // { ok: true, value: "/var/lib/svc/sessions/news/7" }
 */
export function sessionDir(
  dataDir: string,
  channelId: string,
  generation: string | number,
): { ok: true; value: string } | { ok: false; error: string } {
  if (!CHANNEL_ID_PATTERN.test(channelId)) return { ok: false, error: "invalid channel id" };
  const gen = String(generation);
  if (!GENERATION.test(gen))
    return { ok: false, error: "generation must be 1-64 characters of A-Z a-z 0-9 _ -" };
  return { ok: true, value: join(sessionsRoot(dataDir), channelFolderName(channelId), gen) };
}
