import pino, { type Logger } from "pino";

export type { Logger } from "pino";

/**
 * The gateway's structured logger: JSON lines on stdout. Secrets never reach it
 * by construction (request lines carry {@link redactPath} output), and the
 * redact list is a second fence for fields that might carry one.
 */
export function createLogger(options: { level: string; build: "full" | "lite" }): Logger {
  return pino(
    {
      level: options.level,
      base: { build: options.build },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          "password",
          "*.password",
          "token",
          "*.token",
          "authorization",
          "*.authorization",
          "headers.authorization",
          "headers.cookie",
          "key",
          "*.key",
          "sig",
          "*.sig",
        ],
        censor: "[redacted]",
      },
    },
    pino.destination({ dest: 1, sync: false, minLength: 0 }),
  );
}

/** Length of a playback key's display prefix (spec "Limits"). */
export const KEY_DISPLAY_PREFIX = 10;

/**
 * The path of a request as it may be logged: the query string is dropped (it
 * carries `token`, `sig`, `viewer`) and a playback key in `/p/{key}/` is cut to
 * its display prefix.
 */
export function redactPath(path: string): string {
  const q = path.indexOf("?");
  const bare = q === -1 ? path : path.slice(0, q);
  if (!bare.startsWith("/p/")) return bare;
  const end = bare.indexOf("/", 3);
  const key = end === -1 ? bare.slice(3) : bare.slice(3, end);
  if (key.length <= KEY_DISPLAY_PREFIX) return bare;
  return `/p/${key.slice(0, KEY_DISPLAY_PREFIX)}…${end === -1 ? "" : bare.slice(end)}`;
}
