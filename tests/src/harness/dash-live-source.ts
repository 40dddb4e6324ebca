import { type ChildProcess, spawn } from "node:child_process";
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentProtectionXml } from "@svc/test-kits/cenc/clearkey";
import { encryptFile } from "@svc/test-kits/cenc/fragment-encryptor";
import { type EncryptorConfig, encryptInit } from "@svc/test-kits/cenc/init-encryptor";
import { configFor, RECIPES } from "@svc/test-kits/cenc/vector-configs";

/** One request the origin answered, for assertions on what the gateway sent upstream. */
export interface OriginRequest {
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly status: number;
}

export interface DashLiveSourceOptions {
  /** Video heights, one Representation each (16:9), highest first. Default [360, 180]. */
  readonly heights?: readonly number[];
  /** One audio AdaptationSet per language (ISO 639-2). Default ["eng", "deu"]. */
  readonly languages?: readonly string[];
  /** Seconds ffmpeg runs; afterwards it rewrites the MPD as static. Default 600. */
  readonly durationSec?: number;
  /** CMAF chunk (LL-DASH fragment) duration; 0 writes one fragment per segment. Default 0.5. */
  readonly fragDurationSec?: number;
  /** One CMAF chunk per frame (`-frag_type every_frame`), as low-latency encoders write. */
  readonly everyFrame?: boolean;
  /** Frames between key frames (`-g`); default 25, one per second. */
  readonly gop?: number;
  readonly segDurationSec?: number;
  /** false: SegmentList addressing (`-use_template 0`), which the native engine refuses. */
  readonly useTemplate?: boolean;
  /**
   * ClearKey CENC: the origin encrypts on the fly with the test-only encryptor of the
   * playback package (recipe name, default `cenc-iv8`), and announces it in the MPD
   * (`cenc:default_KID`). Segments are then served once complete, not as they grow.
   */
  readonly encrypt?: { readonly kid: string; readonly key: string; readonly recipe?: string };
}

export interface DashLiveSource {
  /** `http://127.0.0.1:PORT/dash/out.mpd`. */
  readonly mpdUrl: string;
  readonly origin: string;
  readonly dir: string;
  readonly requests: OriginRequest[];
  /** ffmpeg's process (its pid for CPU measurements). */
  readonly ffmpeg: ChildProcess;
  /** Resolves once the MPD lists at least `segments` media segments per Representation. */
  waitForSegments(segments: number, timeoutMs?: number): Promise<void>;
  /** Kills ffmpeg only: the origin keeps serving what was written (a stalled source). */
  killEncoder(): Promise<void>;
  /** Kills ffmpeg, closes the origin and removes the directory. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const p of running) p.kill("SIGKILL");
});

/**
 * A live DASH source on loopback: ffmpeg encodes lavfi `testsrc2` + `sine` in real
 * time (`-re`) into LL-DASH (CMAF chunks, SegmentTimeline, `$Number%05d$`) in a temp
 * dir, and an HTTP origin serves it. ffmpeg writes an in-progress segment as `NAME.tmp`
 * and renames it when complete; a request for NAME while only the `.tmp` exists is
 * answered with chunked transfer that follows the growing file until the rename, the
 * way an LL-DASH origin delivers chunks as they are encoded. `/time` answers the
 * UTCTiming (http-xsdate) the MPD points at.
 */
export async function startDashLiveSource(
  options: DashLiveSourceOptions = {},
): Promise<DashLiveSource> {
  const heights = options.heights ?? [360, 180];
  const languages = options.languages ?? ["eng", "deu"];
  const dir = mkdtempSync(join(tmpdir(), "dash-live-"));
  const requests: OriginRequest[] = [];
  const cipher = options.encrypt && originCipher(options.encrypt, heights.length);
  const server = createServer((req, res) => {
    void answer(dir, req, res, cipher).then((status) =>
      requests.push({ path: req.url ?? "", headers: req.headers, status }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const args = ["-hide_banner", "-loglevel", "error", "-y", "-re"];
  args.push("-f", "lavfi", "-i", `testsrc2=size=${width(heights[0]!)}x${heights[0]}:rate=25`);
  args.push("-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000");
  args.push("-t", String(options.durationSec ?? 600));
  for (const _ of heights) args.push("-map", "0:v");
  for (const _ of languages) args.push("-map", "1:a");
  args.push("-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency");
  args.push("-g", String(options.gop ?? 25));
  args.push("-b:v:0", "800k");
  for (const [i, h] of heights.entries()) args.push(`-s:v:${i}`, `${width(h)}x${h}`);
  args.push("-c:a", "aac", "-b:a", "64k");
  for (const [i, l] of languages.entries()) args.push(`-metadata:s:a:${i}`, `language=${l}`);
  const frag = options.fragDurationSec ?? 0.5;
  args.push("-f", "dash", "-streaming", "1", "-ldash", "1");
  args.push("-seg_duration", String(options.segDurationSec ?? 2));
  if (options.everyFrame) args.push("-frag_type", "every_frame");
  else if (frag > 0) args.push("-frag_duration", String(frag), "-frag_type", "duration");
  args.push("-window_size", "3", "-extra_window_size", "10");
  const template = options.useTemplate ?? true;
  args.push("-use_template", template ? "1" : "0", "-use_timeline", template ? "1" : "0");
  args.push("-format_options", "movflags=cmaf");
  args.push("-utc_timing_url", `${origin}/time`);
  // One AdaptationSet per audio stream: with `streams=a` ffmpeg puts every language into
  // one set carrying only the first @lang.
  const videoStreams = heights.map((_, i) => i).join(",");
  const sets = [`id=0,streams=${videoStreams}`];
  for (const i of languages.keys()) sets.push(`id=${i + 1},streams=${heights.length + i}`);
  args.push("-adaptation_sets", sets.join(" "), join(dir, "out.mpd"));
  const ffmpeg = spawn("ffmpeg", args, { stdio: ["ignore", "ignore", "pipe"] });
  running.add(ffmpeg);
  ffmpeg.once("exit", () => running.delete(ffmpeg));
  let stderr = "";
  ffmpeg.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });

  return {
    mpdUrl: `${origin}/dash/out.mpd`,
    origin,
    dir,
    requests,
    ffmpeg,
    async waitForSegments(segments, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (countListed(dir) >= segments) return;
        if (ffmpeg.exitCode !== null) throw new Error(`ffmpeg exited: ${stderr}`);
        if (Date.now() > deadline) throw new Error(`no ${segments} segments in time: ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    killEncoder: () => killProcess(ffmpeg),
    async stop() {
      await killProcess(ffmpeg);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function killProcess(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once("exit", r));
  p.kill("SIGKILL");
  await exited;
}

function width(height: number): number {
  return Math.round((height * 16) / 9 / 2) * 2;
}

/** Media segments listed for the first Representation (S elements with their repeats). */
function countListed(dir: string): number {
  let text: string;
  try {
    text = readFileSync(join(dir, "out.mpd"), "utf8");
  } catch {
    return 0;
  }
  const list = /<SegmentList[\s\S]*?<\/SegmentList>/.exec(text)?.[0];
  if (list !== undefined) return (list.match(/<SegmentURL /g) ?? []).length;
  const timeline = /<SegmentTimeline>([\s\S]*?)<\/SegmentTimeline>/.exec(text)?.[1] ?? "";
  let n = 0;
  for (const m of timeline.matchAll(/<S ([^>]*)\/>/g))
    n += 1 + Number(/r="(\d+)"/.exec(m[1]!)?.[1] ?? 0);
  return n;
}

const TYPES: Record<string, string> = {
  mpd: "application/dash+xml",
  m4s: "video/iso.segment",
  mp4: "video/mp4",
};

/** How the origin encrypts: the MPD's ContentProtection and each stream's encryptor state. */
interface OriginCipher {
  readonly protection: string;
  config(stream: number): EncryptorConfig;
  inits: Map<number, ReturnType<typeof encryptInit>>;
}

function originCipher(
  o: NonNullable<DashLiveSourceOptions["encrypt"]>,
  videoStreams: number,
): OriginCipher {
  const recipe = RECIPES.find((r) => r.name === (o.recipe ?? "cenc-iv8"));
  if (recipe === undefined) throw new Error(`no recipe ${o.recipe}`);
  const kid = Buffer.from(o.kid, "hex");
  const key = Buffer.from(o.key, "hex");
  return {
    protection: contentProtectionXml(recipe.scheme, kid),
    // Every stream of ffmpeg's DASH output is its own file with track id 1.
    config: (stream) =>
      configFor(recipe, stream < videoStreams ? { video: 1 } : { audio: 1 }, kid, key),
    inits: new Map(),
  };
}

/** The MPD with the cenc namespace and a ContentProtection in every AdaptationSet. */
function protectMpd(text: string, cipher: OriginCipher): string {
  return text
    .replace(/<MPD\b/, '<MPD xmlns:cenc="urn:mpeg:cenc:2013"')
    .replace(/(<AdaptationSet\b[^>]*>)/g, `$1\n${cipher.protection}\n`);
}

/** Waits (up to 60 s) until ffmpeg renamed `NAME.tmp` to NAME; false if it never did. */
async function complete(path: string): Promise<boolean> {
  const deadline = Date.now() + 60_000;
  while (!existsSync(path)) {
    if (!existsSync(`${path}.tmp`) || Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

async function answerEncrypted(
  dir: string,
  name: string,
  res: ServerResponse,
  cipher: OriginCipher,
): Promise<number> {
  const path = join(dir, name);
  const stream = Number(/-stream(\d+)/.exec(name)?.[1] ?? -1);
  let body: Buffer | undefined;
  if (name.endsWith(".mpd") && existsSync(path))
    body = Buffer.from(protectMpd(readFileSync(path, "utf8"), cipher));
  else if (stream >= 0 && name.startsWith("init-") && existsSync(path)) {
    let init = cipher.inits.get(stream);
    if (!init) {
      init = encryptInit(readFileSync(path), cipher.config(stream));
      cipher.inits.set(stream, init);
    }
    body = init.init;
  } else if (stream >= 0 && (await complete(path))) {
    const init =
      cipher.inits.get(stream) ??
      encryptInit(readFileSync(join(dir, `init-stream${stream}.m4s`)), cipher.config(stream));
    cipher.inits.set(stream, init);
    body = encryptFile(readFileSync(path), cipher.config(stream), init.info);
  }
  if (body === undefined) {
    res.writeHead(404).end();
    return 404;
  }
  const type = TYPES[name.split(".").pop() ?? ""] ?? "application/octet-stream";
  res.writeHead(200, { "content-type": type, "content-length": body.length }).end(body);
  return 200;
}

async function answer(
  dir: string,
  req: IncomingMessage,
  res: ServerResponse,
  cipher: OriginCipher | undefined,
): Promise<number> {
  const url = new URL(req.url ?? "/", "http://origin");
  if (url.pathname === "/time") {
    res.writeHead(200, { "content-type": "text/plain" }).end(new Date().toISOString());
    return 200;
  }
  const name = url.pathname.startsWith("/dash/") ? url.pathname.slice(6) : "";
  if (!/^[\w.-]+$/.test(name) || name.includes("..")) {
    res.writeHead(404).end();
    return 404;
  }
  if (cipher) return answerEncrypted(dir, name, res, cipher);
  const path = join(dir, name);
  const type = TYPES[name.split(".").pop() ?? ""] ?? "application/octet-stream";
  if (existsSync(path)) {
    const body = name.endsWith(".mpd") ? readFileSync(path) : undefined;
    if (body !== undefined) {
      res.writeHead(200, { "content-type": type, "content-length": body.length }).end(body);
      return 200;
    }
    res.writeHead(200, { "content-type": type, "content-length": statSync(path).size });
    createReadStream(path).pipe(res);
    return 200;
  }
  if (!existsSync(`${path}.tmp`)) {
    res.writeHead(404).end();
    return 404;
  }
  res.writeHead(200, { "content-type": type });
  await followGrowingFile(path, res);
  return 200;
}

/** Streams `NAME.tmp` as it grows; after ffmpeg renames it, sends the rest of NAME and ends. */
async function followGrowingFile(path: string, res: ServerResponse): Promise<void> {
  let offset = 0;
  let closed = false;
  res.once("close", () => {
    closed = true;
  });
  const buf = Buffer.alloc(256 * 1024);
  const deadline = Date.now() + 60_000;
  while (!closed && Date.now() < deadline) {
    const done = existsSync(path);
    const file = done ? path : `${path}.tmp`;
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      handle = await open(file, "r");
      for (;;) {
        const { bytesRead } = await handle.read(buf, 0, buf.length, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        if (!res.write(Buffer.from(buf.subarray(0, bytesRead)))) {
          // A client that goes away never drains: its close ends the wait too, so the
          // file handle is closed below instead of being left to the garbage collector.
          await new Promise((r) => {
            res.once("drain", r);
            res.once("close", r);
          });
          if (closed) break;
        }
      }
    } catch {
      // renamed between the check and the open: the next round reads the final file
    } finally {
      await handle?.close();
    }
    if (done) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  res.end();
}
