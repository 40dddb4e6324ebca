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
  /**
   * The channel's `headers`, sent on every request (MPD and segments) by the egress proxy,
   * never through ffmpeg's argv (`/proc/<pid>/cmdline` is readable by every local user).
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** The channel's `user_agent`, sent like the headers; empty means ffmpeg's default. */
  readonly userAgent?: string;
  /** ClearKey content key, 32 hex digits, for `-cenc_decryption_key`. */
  readonly decryptionKey?: string;
  /**
   * The egress proxy (`EgressProxy.url` from `@svc/core/egress`, no secret in it) that
   * every MPD and segment request goes through, so the SSRF guard applies to ffmpeg too.
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

/** The variables ffmpeg is started with; everything else of the gateway's stays behind. */
const FFMPEG_ENV_KEEP = ["PATH", "LANG"] as const;

/**
 * The environment to spawn ffmpeg with: `PATH` and `LANG` of the given one, nothing else.
 * The gateway's environment may hold `SVC_TOKEN_PRIVATE_KEY`, `SVC_DATABASE_URL` and the
 * like, which `/proc/<pid>/environ` of ffmpeg would show; `no_proxy` would let ffmpeg
 * connect straight to matching hosts, around the egress proxy.
 */
export function ffmpegEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const name of FFMPEG_ENV_KEEP) if (env[name] !== undefined) out[name] = env[name];
  return out;
}

/**
 * The request headers the egress proxy adds for the run: the channel's headers and its user
 * agent (as `User-Agent`, replacing ffmpeg's own).
 */
export function proxiedHeaders(source: FfmpegSource): Record<string, string> {
  const out: Record<string, string> = { ...source.headers };
  if (source.userAgent) out["User-Agent"] = source.userAgent;
  return out;
}

/**
 * The master playlist of the session folder, served as the channel's `index.m3u8` (spec
 * "Playback" 1): written by the gateway from the MPD (see ffmpeg-layout.ts), or by ffmpeg
 * (`-master_pl_name`) when the MPD's streams cannot be named.
 */
export const PLAYLIST_NAME = "index.m3u8";

/** The media playlist of variant `index` (`-var_stream_map` order; 0 without a map). */
export function mediaPlaylistName(index: number): string {
  return `media-${index}.m3u8`;
}

/**
 * The MPD Representations ffmpeg publishes, by `@id` (ffmpeg 5.1's DASH reader tags each
 * stream with `id`, so `-map 0:m:id:<id>` picks one): the video, then each audio rendition,
 * each written as its own media playlist (`-var_stream_map "v:0 a:0 a:1"`).
 */
export interface StreamMap {
  readonly video?: string;
  readonly audio: readonly string[];
}

/** Ids that pass through ffmpeg's stream-specifier syntax unharmed (no `:`, no spaces). */
const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Does ffmpeg's `-map 0:m:id:<id>` address every stream of `streams` as it is? */
export function isMappable(streams: StreamMap): boolean {
  const ids = [...(streams.video === undefined ? [] : [streams.video]), ...streams.audio];
  return ids.length > 0 && ids.every((id) => SAFE_ID.test(id));
}

/** How many media playlists a run writes. */
export function variantCount(streams: StreamMap | undefined): number {
  return streams === undefined ? 1 : (streams.video === undefined ? 0 : 1) + streams.audio.length;
}

/**
 * File names of one run: a restart never reuses a name a player may have cached as
 * immutable. With a stream map, `%v` is the variant index.
 */
export function runFileNames(run: number, segmentType: "fmp4" | "mpegts", variants = false) {
  const v = variants ? "-%v" : "";
  return {
    init: `init-r${run}${v}.mp4`,
    segmentPattern: `r${run}${v}-%d.${segmentType === "fmp4" ? "m4s" : "ts"}`,
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
 * With `streams`, exactly those Representations are mapped, each into its own media
 * playlist (`media-<i>.m3u8`); without, ffmpeg's default choice (one video, one audio) goes
 * into `media-0.m3u8` and ffmpeg writes the master itself.
 */
export function buildFfmpegArgs(
  source: FfmpegSource,
  dir: string,
  run: number,
  output: HlsOutputOptions = {},
  streams?: StreamMap,
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
  if (source.httpProxy === undefined && (headers.length > 0 || source.userAgent))
    return { ok: false, error: "channel headers are sent by the egress proxy, and there is none" };
  if (streams !== undefined && !isMappable(streams))
    return { ok: false, error: "a Representation id cannot be passed to ffmpeg's -map" };
  const names = runFileNames(run, segmentType, streams !== undefined);
  const flags = ["delete_segments", "independent_segments", "temp_file"];
  if (run > 0) flags.push("discont_start");
  const args = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "warning"];
  args.push("-progress", "pipe:1");
  if (source.decryptionKey !== undefined) args.push("-cenc_decryption_key", source.decryptionKey);
  if (source.httpProxy !== undefined) args.push("-http_proxy", source.httpProxy);
  args.push("-protocol_whitelist", PROTOCOL_WHITELIST);
  args.push("-i", source.url);
  if (streams !== undefined) {
    const ids = [...(streams.video === undefined ? [] : [streams.video]), ...streams.audio];
    for (const id of ids) args.push("-map", `0:m:id:${id}`);
  }
  // Subtitles and data cannot be copied into HLS and would fail the muxer.
  args.push("-sn", "-dn", "-c", "copy");
  args.push("-f", "hls");
  args.push("-hls_time", String(output.segmentSeconds ?? 2));
  args.push("-hls_list_size", String(output.listSize ?? 6));
  args.push("-hls_flags", flags.join("+"));
  args.push("-hls_start_number_source", "epoch");
  args.push("-hls_segment_type", segmentType);
  if (segmentType === "fmp4") args.push("-hls_fmp4_init_filename", names.init);
  args.push("-hls_segment_filename", join(dir, names.segmentPattern));
  if (streams === undefined) {
    args.push("-master_pl_name", PLAYLIST_NAME);
    args.push(join(dir, mediaPlaylistName(0)));
  } else {
    const video = streams.video === undefined ? [] : ["v:0"];
    args.push("-var_stream_map", [...video, ...streams.audio.map((_, i) => `a:${i}`)].join(" "));
    args.push(join(dir, "media-%v.m3u8"));
  }
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
