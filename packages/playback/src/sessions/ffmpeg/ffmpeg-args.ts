import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { REDACTED, scrubUrls } from "./secret-scrubber.js";

/** The HLS output ffmpeg writes into the session folder. */
export interface HlsOutputOptions {
  /** `fmp4` (default): CMAF segments with an EXT-X-MAP init; `mpegts`: TS segments. */
  readonly segmentType?: "fmp4" | "mpegts";
  /** Target segment length; ffmpeg cuts at the next keyframe after it (`-c copy`). Default 2. */
  readonly segmentSeconds?: number;
  /** Segments in the sliding-window playlist. Default 6. */
  readonly listSize?: number;
}

/** What ffmpeg reads: a DASH MPD plus the channel's request settings. */
export interface FfmpegSource {
  readonly url: string;
  /** The channel's `headers`, sent on every request (MPD and segments). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The channel's `user_agent`; empty means ffmpeg's default. */
  readonly userAgent?: string;
  /** ClearKey content key, 32 hex digits, for `-cenc_decryption_key`. */
  readonly decryptionKey?: string;
  /**
   * The egress proxy (`EgressProxy.url` from `@svc/core/egress`) that every MPD and
   * segment request goes through, so the SSRF guard applies to ffmpeg too. It carries a
   * credential: {@link describeArgs} redacts it.
   */
  readonly httpProxy?: string;
}

/**
 * `-protocol_whitelist` of the input, nested opens included (ffmpeg 5.1 passes it to every
 * URL the DASH demuxer opens): `http`/`https` and what they stand on, `tcp` and `tls`, and
 * `httpproxy`, ffmpeg's CONNECT tunnel for https:// through `-http_proxy`. `file:` and
 * everything else is refused, whatever an MPD's BaseURL says. Checked with ffmpeg 5.1:
 * - `-http_proxy` reaches the MPD and every init and media segment request: `http://` as
 *   `GET http://host/path HTTP/1.1` (absolute form, `Connection: close`, `Range: bytes=0-`),
 *   `https://` as one `CONNECT host:port` per request, the TLS inside the tunnel.
 * - Proxy credentials from the URL are sent only after a 407 with `Proxy-Authenticate:
 *   Basic`, on a new connection, for each request (two round trips on loopback).
 * - Without `tcp` plain http fails, without `httpproxy` https through the proxy fails; an
 *   MPD with `<BaseURL>file:///etc/</BaseURL>` fails with "Protocol 'file' not on whitelist".
 * - ffmpeg bypasses `-http_proxy` for hosts matched by the environment's `no_proxy`
 *   (lowercase only): spawn it with {@link ffmpegEnvironment}.
 */
export const PROTOCOL_WHITELIST = "http,https,tcp,tls,httpproxy";

/**
 * The environment to spawn ffmpeg with: the given one without `no_proxy` (and `NO_PROXY`),
 * which would let ffmpeg connect straight to matching hosts, around the egress proxy.
 */
export function ffmpegEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { no_proxy: _lower, NO_PROXY: _upper, ...rest } = env;
  return rest;
}

/** The playlist name ffmpeg writes; served at `live/index.m3u8`. */
export const PLAYLIST_NAME = "index.m3u8";

/** File names of one run: a restart never reuses a name a player may have cached as immutable. */
export function runFileNames(run: number, segmentType: "fmp4" | "mpegts") {
  return {
    init: `init-r${run}.mp4`,
    segmentPattern: `r${run}-%d.${segmentType === "fmp4" ? "m4s" : "ts"}`,
  };
}

/**
 * Delete the segment and init files of runs before `run - 1` (a player may still be reading
 * the previous run's last segments). Errors are ignored: a leftover file is only disk space.
 */
export async function removeOldRunFiles(dir: string, run: number): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const m = /^(?:init-)?r(\d+)[-.]/.exec(name);
    if (m !== null && Number(m[1]) < run - 1)
      await rm(join(dir, name), { force: true }).catch(() => undefined);
  }
}

const UNSAFE_VALUE = /[\r\n\0]/;

/**
 * argv for one ffmpeg run reading `source` and writing HLS into `dir`. The media sequence
 * starts from the epoch (`-hls_start_number_source epoch`) so it keeps rising across
 * restarts; restarts (`run > 0`) also mark a discontinuity at the start of the playlist.
 */
export function buildFfmpegArgs(
  source: FfmpegSource,
  dir: string,
  run: number,
  output: HlsOutputOptions = {},
): { ok: true; value: string[] } | { ok: false; error: string } {
  const segmentType = output.segmentType ?? "fmp4";
  const headers = Object.entries(source.headers ?? {});
  for (const [name, value] of headers) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || UNSAFE_VALUE.test(value))
      return { ok: false, error: `header ${JSON.stringify(name)} cannot be sent` };
  }
  if (source.userAgent !== undefined && UNSAFE_VALUE.test(source.userAgent))
    return { ok: false, error: "user_agent cannot be sent" };
  if (source.decryptionKey !== undefined && !/^[0-9a-fA-F]{32}$/.test(source.decryptionKey))
    return { ok: false, error: "the decryption key must be 32 hex digits" };
  if (source.httpProxy !== undefined && !isHttpProxyUrl(source.httpProxy))
    return { ok: false, error: "the egress proxy must be an http:// URL" };
  const names = runFileNames(run, segmentType);
  const flags = ["delete_segments", "independent_segments", "temp_file"];
  if (run > 0) flags.push("discont_start");
  const args = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "warning"];
  args.push("-progress", "pipe:1");
  if (source.userAgent) args.push("-user_agent", source.userAgent);
  if (headers.length > 0) args.push("-headers", headers.map(([n, v]) => `${n}: ${v}\r\n`).join(""));
  if (source.decryptionKey !== undefined) args.push("-cenc_decryption_key", source.decryptionKey);
  if (source.httpProxy !== undefined) args.push("-http_proxy", source.httpProxy);
  args.push("-protocol_whitelist", PROTOCOL_WHITELIST);
  args.push("-i", source.url);
  // One video and one audio stream by ffmpeg's own choice; subtitles and data cannot be
  // copied into HLS and would fail the muxer.
  args.push("-sn", "-dn", "-c", "copy");
  args.push("-f", "hls");
  args.push("-hls_time", String(output.segmentSeconds ?? 2));
  args.push("-hls_list_size", String(output.listSize ?? 6));
  args.push("-hls_flags", flags.join("+"));
  args.push("-hls_start_number_source", "epoch");
  args.push("-hls_segment_type", segmentType);
  if (segmentType === "fmp4") args.push("-hls_fmp4_init_filename", names.init);
  args.push("-hls_segment_filename", join(dir, names.segmentPattern));
  args.push(join(dir, PLAYLIST_NAME));
  return { ok: true, value: args };
}

function isHttpProxyUrl(url: string): boolean {
  if (/[\s\0]/.test(url)) return false;
  try {
    return new URL(url).protocol === "http:";
  } catch {
    return false;
  }
}

/** `http://user:pass@127.0.0.1:PORT` → `http://[redacted]@127.0.0.1:PORT`. */
function redactProxy(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username || u.password ? `${REDACTED}@` : ""}${u.host}`;
  } catch {
    return REDACTED;
  }
}

/**
 * argv fit for a status page or a log line: header values, the key and the proxy
 * credential replaced, URL credentials and query strings removed, and `scrub` (the
 * session's secret scrubber) applied to everything else, since a secret may sit anywhere,
 * even in a URL path.
 */
export function describeArgs(
  args: readonly string[],
  scrub: (text: string) => string = scrubUrls,
): string[] {
  return args.map((arg, i) => {
    const flag = args[i - 1];
    if (flag === "-cenc_decryption_key" || flag === "-decryption_key") return REDACTED;
    if (flag === "-http_proxy") return redactProxy(arg);
    if (flag === "-headers")
      return arg
        .split("\r\n")
        .filter((line) => line !== "")
        .map((line) => `${line.slice(0, Math.max(0, line.indexOf(":")))}: ${REDACTED}`)
        .join("\\r\\n");
    return scrub(arg);
  });
}
