import { type InitInfo, parseInit } from "../../mp4/init-parser.js";
import { inspectFragment } from "../../mp4/inspect-fragment.js";
import {
  describeRefusal,
  type FetchContext,
  fetchBytes,
  openUpstream,
} from "../fetcher/upstream-fetch.js";
import type { Mpd } from "../manifest/mpd-model.js";
import {
  createSequenceState,
  type SequenceState,
  type TrackableSegment,
} from "../manifest/sequence-tracker.js";
import type { RenditionWindow, WindowPart } from "../publisher/rendition-window.js";
import { ChunkAssembler } from "../segmenter/chunk-assembler.js";
import type { FragmentTransform } from "../segmenter/fragment-transform.js";
import { PartCoalescer } from "../segmenter/part-coalescer.js";
import type { SelectionPreferences } from "../selection/representation-choice.js";
import type { PackagerCounters } from "./packager-counters.js";
import {
  type CursorPosition,
  type NextSegment,
  nextSegment,
  type RenditionRole,
} from "./segment-cursor.js";
import { advance, startsDiscontinuity, trackable, trimmedTo } from "./sequence-advance.js";

/** The newest MPD and the origin clock, shared by every pump of a packager. */
export interface MpdSnapshot {
  readonly mpd: Mpd;
  readonly clockOffsetMs: number;
}

export interface PumpOptions {
  readonly ctx: FetchContext;
  readonly role: RenditionRole;
  readonly prefs: SelectionPreferences;
  readonly window: RenditionWindow;
  readonly transform: FragmentTransform;
  readonly counters: PackagerCounters;
  readonly startAtSec: number | undefined;
  readonly maxWindow: number;
  /** Ceiling of one init segment and of one CMAF chunk. */
  readonly maxInitBytes: number;
  readonly maxChunkBytes: number;
  /** `media.part_target_ms` in seconds: consecutive chunks are grouped into parts of about it. */
  readonly partTargetSec: number;
  snapshot(): MpdSnapshot;
  /** Resolves after the next MPD refresh, or after `ms`, whichever is first. */
  nextRefresh(ms: number): Promise<void>;
  /** Every published part and segment (progress for stall detection). */
  onProgress(kind: "part" | "segment"): void;
  onError(message: string): void;
}

type SegmentOutcome =
  | { kind: "done"; position: CursorPosition }
  | { kind: "not_yet" }
  | { kind: "failed"; message: string };

/** Sleep that ends early when the session stops. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Feeds one rendition: asks the cursor for the next segment, fetches its init section
 * when it changes, streams the segment through the fragment transform into CMAF chunks
 * and publishes each chunk as a part the moment it is complete, then the whole segment.
 * Runs until the session's signal aborts or the MPD ends.
 */
export async function runRenditionPump(o: PumpOptions): Promise<void> {
  const { signal } = o.ctx;
  let last: CursorPosition | undefined;
  let seq: SequenceState<TrackableSegment> | undefined;
  let initUrl: string | undefined;
  let init: InitInfo | undefined;
  let mapIndex = -1;
  let failures = 0;
  // One per rendition: it learns the chunk duration once and keeps the part size steady.
  const coalescer = new PartCoalescer(o.partTargetSec);
  while (!signal.aborted) {
    const snap = o.snapshot();
    const next = nextSegment({
      mpd: snap.mpd,
      role: o.role,
      prefs: o.prefs,
      last,
      startAtSec: o.startAtSec,
      nowMs: Date.now(),
      clockOffsetMs: snap.clockOffsetMs,
    });
    if (next.kind === "ended") {
      o.window.end();
      return;
    }
    if (next.kind === "error") o.onError(next.message);
    if (next.kind !== "segment") {
      await o.nextRefresh(1000);
      continue;
    }
    if (next.initUrl !== undefined && next.initUrl !== initUrl) {
      const r = await fetchInit(o, next.initUrl);
      // The transform refused the init (a missing key, an unsupported scheme): the same
      // bytes would fail again, so the packager gives up and the session fails with it.
      if (!r.ok && r.fatal) throw new Error(r.message);
      if (!r.ok) {
        o.counters.fetch_errors += 1;
        o.counters.retries += 1;
        o.onError(r.message);
        await pause(Math.min(500 * 2 ** failures++, 5000), signal);
        continue;
      }
      init = r.init;
      initUrl = next.initUrl;
      mapIndex += 1;
      o.window.setMap(mapIndex, r.bytes);
      failures = 0;
    }
    if (!init) {
      o.onError("representation has no initialization segment");
      await o.nextRefresh(2000);
      continue;
    }
    seq ??= createSequenceState(next.segment.number);
    const outcome = await pumpSegment(o, next, init, mapIndex, seq, coalescer);
    if (outcome.kind === "done") {
      failures = 0;
      last = outcome.position;
      seq = advance(seq, last, o.maxWindow);
      o.window.complete(seq.discontinuitySequence, next.segment.wallClockStartMs);
      o.counters.segments_published += 1;
      o.onProgress("segment");
      continue;
    }
    o.window.abandon();
    if (outcome.kind === "not_yet") {
      // LL-DASH: the encoder has not started this segment. Its first chunk is due one chunk
      // after the segment's start on the origin's clock: sleep until then rather than
      // asking every 100 ms; past it, ask again shortly.
      const due = (next.segment.wallClockStartMs ?? 0) + coalescer.longestChunk() * 1000;
      const early = due - (Date.now() + snap.clockOffsetMs);
      const retry = o.window.partTargetSec === undefined ? 500 : 100;
      await o.nextRefresh(early > retry ? Math.min(early, 2000) : retry);
      continue;
    }
    o.counters.fetch_errors += 1;
    o.counters.retries += 1;
    o.onError(outcome.message);
    failures += 1;
    if (!next.predicted && failures >= 3) {
      // A listed segment that keeps failing is skipped (a gap: the next one starts a
      // discontinuity) rather than holding the whole rendition.
      last = positionOf(next, next.segment.duration);
      failures = 0;
    }
    await pause(Math.min(250 * 2 ** failures, 4000), signal);
  }
}

async function fetchInit(
  o: PumpOptions,
  url: string,
): Promise<
  { ok: true; bytes: Buffer; init: InitInfo } | { ok: false; message: string; fatal?: true }
> {
  const r = await fetchBytes(o.ctx, url, { maxBytes: o.maxInitBytes, deadlineMs: 15_000 });
  // The guard refuses by address, so every later try would be refused too: fatal.
  if (!r.ok && r.kind === "refused")
    return { ok: false, fatal: true, message: `init segment: ${describeRefusal(url, r.message)}` };
  if (!r.ok) return { ok: false, message: `init segment: ${r.message}` };
  o.counters.bytes_in += r.bytes.length;
  const t = o.transform.init(r.bytes);
  if (!t.ok)
    return { ok: false, fatal: true, message: `init segment ${t.error.box}: ${t.error.message}` };
  const parsed = parseInit(t.value);
  if (!parsed.ok)
    return { ok: false, message: `init segment ${parsed.error.box}: ${parsed.error.message}` };
  if (parsed.value.tracks.length !== 1)
    return { ok: false, message: `init segment has ${parsed.value.tracks.length} tracks, want 1` };
  return { ok: true, bytes: t.value, init: parsed.value };
}

function positionOf(next: NextSegment & { kind: "segment" }, duration: bigint): CursorPosition {
  const s = next.segment;
  return {
    periodId: s.periodId,
    periodStart: s.periodStart,
    number: s.number,
    time: s.time,
    duration,
    timescale: s.timescale,
  };
}

async function pumpSegment(
  o: PumpOptions,
  next: NextSegment & { kind: "segment" },
  init: InitInfo,
  mapIndex: number,
  seq: SequenceState<TrackableSegment>,
  coalescer: PartCoalescer,
): Promise<SegmentOutcome> {
  const s = next.segment;
  const deadline = Math.max(15_000, s.durationSec * 4000 + 10_000);
  const opened = await openUpstream(o.ctx, s.url, deadline);
  // A refused segment host stays refused: the packager gives up (the session fails with it).
  if (!opened.ok && opened.kind === "refused")
    throw new Error(`segment ${s.number}: ${describeRefusal(s.url, opened.message)}`);
  if (!opened.ok) {
    if (
      opened.kind === "status" &&
      (opened.status === 404 || opened.status === 410) &&
      next.predicted
    )
      return { kind: "not_yet" };
    return { kind: "failed", message: `segment ${s.number}: ${opened.message}` };
  }
  const track = init.tracks[0]!;
  const mediaTimescale = track.timescale;
  const here = trackable(positionOf(next, s.duration));
  const base = trimmedTo(seq, here);
  o.window.begin(base.nextMsn, startsDiscontinuity(base, here), mapIndex, s.durationSec);
  const assembler = new ChunkAssembler(o.maxChunkBytes);
  let mediaTicks = 0;
  let failure: string | undefined;
  try {
    for await (const data of opened.body) {
      const buf = data as Buffer;
      o.counters.bytes_in += buf.length;
      const r = assembler.push(buf);
      if (!r.ok) {
        failure = `segment ${s.number} ${r.error.box}: ${r.error.message}`;
        break;
      }
      // Clear content is final as it arrives: a preload-hinted part can stream it.
      const streamable = o.transform.passthrough();
      for (const chunk of r.value) {
        // Timing is read from the chunk as it arrived: a transform never changes it.
        const info = inspectFragment(chunk.head, init);
        if (!info.ok) {
          failure = `segment ${s.number} ${info.error.box}: ${info.error.message}`;
          break;
        }
        const t = o.transform.chunk(chunk);
        if (!t.ok) {
          failure = `segment ${s.number} ${t.error.box}: ${t.error.message}`;
          break;
        }
        const tr = info.value.tracks[0];
        const ticks = tr?.totalDuration ?? 0;
        mediaTicks += ticks;
        if (o.window.partTargetSec !== undefined) coalescer.retarget(o.window.partTargetSec);
        const part = coalescer.add(t.value, ticks / mediaTimescale, tr?.firstSampleIsSync ?? false);
        o.window.partCeilingSec = coalescer.ceilingSec();
        // The segment's media is all in (its MPD duration): its last part need not wait for
        // the end of the body.
        const last =
          part ??
          (mediaTicks / mediaTimescale >= s.durationSec - 1e-3 ? coalescer.flush() : undefined);
        if (last) publishPart(o, last, s.wallClockStartMs, mediaTicks / mediaTimescale);
      }
      if (failure !== undefined) break;
      if (streamable && (assembler.inProgress().length > 0 || coalescer.held().length > 0))
        o.window.growPart(() => [...coalescer.held(), ...assembler.inProgress()]);
    }
    if (failure === undefined) {
      const end = assembler.end();
      if (!end.ok) failure = `segment ${s.number} ${end.error.box}: ${end.error.message}`;
    }
    // The chunks that arrived were complete: a segment cut short still publishes them.
    const tail = coalescer.flush();
    if (tail) publishPart(o, tail, s.wallClockStartMs, mediaTicks / mediaTimescale);
  } catch (err) {
    failure = `segment ${s.number}: ${o.ctx.signal.aborted ? "stopped" : (err as Error).message}`;
  } finally {
    coalescer.reset();
    opened.body.destroy();
    opened.done();
  }
  if (mediaTicks === 0)
    return { kind: "failed", message: failure ?? `segment ${s.number} is empty` };
  // A segment cut short still publishes the parts that arrived: they were announced.
  if (failure !== undefined) o.onError(failure);
  const duration = next.predicted
    ? (BigInt(mediaTicks) * BigInt(s.timescale)) / BigInt(mediaTimescale)
    : s.duration;
  return { kind: "done", position: positionOf(next, duration) };
}

/** Publishes one part and updates the live-edge counter (media time `edgeSec` into the segment). */
function publishPart(
  o: PumpOptions,
  part: WindowPart,
  wallClockStartMs: number | undefined,
  edgeSec: number,
): void {
  o.window.addPart(part);
  o.counters.parts_published += 1;
  if (wallClockStartMs !== undefined) {
    const edgeMs = wallClockStartMs + edgeSec * 1000;
    o.counters.live_edge_delay_ms = Math.max(
      0,
      Math.round(Date.now() + o.snapshot().clockOffsetMs - edgeMs),
    );
  }
  o.onProgress("part");
}
