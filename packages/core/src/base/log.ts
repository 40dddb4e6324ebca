import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import { loggableError } from "./loggable-error.js";

export type { Logger } from "pino";
export { type LoggedError, loggableError } from "./loggable-error.js";

/** `json`: one JSON object per line (for collectors); `pretty`: coloured, human-readable lines. */
export type LogFormat = "json" | "pretty";

/** Levels `SVC_LOG_LEVEL` accepts. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/**
 * The format when `SVC_LOG_FORMAT` does not force one: pretty for a person at a
 * terminal, JSON lines for everything else (pipes, journald, container logs).
 */
export function resolveLogFormat(requested: string | undefined, stdoutIsTty: boolean): LogFormat {
  if (requested === "json" || requested === "pretty") return requested;
  return stdoutIsTty ? "pretty" : "json";
}

/**
 * The gateway's structured logger on stdout. Secrets never reach it by
 * construction (request lines carry {@link redactPath} output), and the redact
 * list is a second fence for fields that might carry one; redaction happens
 * before either format renders the record. An `err` goes through
 * {@link loggableError}: a database error is logged by class and code, never
 * with the statement, its parameters or the server's text about them.
 */
export function createLogger(options: {
  level: string;
  build: "full" | "lite";
  format?: LogFormat;
  /** Colours in the pretty format (default: only when stdout is a terminal). */
  colorize?: boolean;
}): Logger {
  const destination =
    options.format === "pretty"
      ? // In-thread and synchronous (no transport worker), so records keep their
        // order with the plain `listening on` lines written to stdout.
        pretty({
          destination: 1,
          sync: true,
          colorize: options.colorize ?? process.stdout.isTTY === true,
          translateTime: "SYS:HH:MM:ss.l",
          // `summary` repeats the startup lines' text as fields for JSON readers.
          ignore: "pid,hostname,build,summary",
          singleLine: true,
        })
      : // Synchronous as pino's own default: the startup summary must reach stdout
        // before the `listening on` line that supervisors and tests wait for.
        pino.destination({ dest: 1, sync: true });
  return pino(
    {
      level: options.level,
      base: { build: options.build },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: loggableError },
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
    destination,
  );
}

/** Length of a playback key's display prefix (spec "Limits"). */
export const KEY_DISPLAY_PREFIX = 10;

/** First path segments of the gateway's own routes: never an Xtream username. */
const OWN_ROOTS = new Set(["v1", "p", "admin", "live", "healthz", "readyz", "metrics"]);

/**
 * The path of a request as it may be logged: the query string is dropped (it
 * carries `token`, `sig`, `viewer`, Xtream's `password`), a playback key in
 * `/p/{key}/` is cut to its display prefix and an Xtream password in
 * `/live/{username}/{password}/…` or `/{username}/{password}/{stream_id}` is
 * masked as `***` (extensions.md "Xtream Codes output").
 */
export function redactPath(path: string): string {
  const q = path.indexOf("?");
  const bare = q === -1 ? path : path.slice(0, q);
  const xtream = maskXtreamPassword(bare);
  if (xtream !== undefined) return xtream;
  if (!bare.startsWith("/p/")) return bare;
  const end = bare.indexOf("/", 3);
  const key = end === -1 ? bare.slice(3) : bare.slice(3, end);
  if (key.length <= KEY_DISPLAY_PREFIX) return bare;
  return `/p/${key.slice(0, KEY_DISPLAY_PREFIX)}…${end === -1 ? "" : bare.slice(end)}`;
}

/** `bare` with its Xtream password masked; undefined when it has no Xtream shape. */
function maskXtreamPassword(bare: string): string | undefined {
  const parts = bare.split("/");
  // ["", "live", username, password, …]
  if (parts[1] === "live" && parts.length >= 5) {
    parts[3] = "***";
    return parts.join("/");
  }
  // ["", username, password, stream_id]: the bare stream form.
  if (parts.length === 4 && !OWN_ROOTS.has(parts[1]!) && /^[0-9]+(\.[a-z0-9]+)?$/.test(parts[3]!)) {
    parts[2] = "***";
    return parts.join("/");
  }
  return undefined;
}
