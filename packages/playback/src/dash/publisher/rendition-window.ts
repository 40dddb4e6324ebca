import type { PlaylistEdge } from "./delivery-directives.js";
import { llTrace, llTraceOn } from "./ll-trace.js";
import {
  type MediaPlaylistInput,
  type PublishedPart,
  type PublishedSegment,
  type RenditionReport,
  renderMediaPlaylistWithFacts,
} from "./media-playlist.js";
import { SlabArena } from "./slab-arena.js";

/** Stands for the per-request query (credential, viewer lease) in cached playlist text. */
export const QUERY_MARK = "\u0001";

/** CMAF chunks published as a Partial Segment (RFC 8216bis 4.4.4.9). */
export interface WindowPart {
  /**
   * The part's bytes in order. What the pump hands over are views of the upstream reads;
   * what the window keeps is one view of its slab arena (`slab-arena.ts`).
   */
  readonly bytes: readonly Buffer[];
  readonly byteLength: number;
  readonly durationSec: number;
  readonly independent: boolean;
}

export interface WindowSegment {
  readonly msn: number;
  readonly durationSec: number;
  readonly discontinuity: boolean;
  readonly mapIndex: number;
  readonly programDateTimeMs?: number;
  /**
   * The segment's bytes are its parts' bytes in order: a segment is served as the list of
   * its parts (one `writev`), never joined into a copy of its own.
   */
  readonly parts: readonly WindowPart[];
}

interface PendingSegment {
  readonly msn: number;
  readonly discontinuity: boolean;
  readonly mapIndex: number;
  /** The segment's duration from the MPD, when known: tells when its last part is in. */
  readonly expectedSec: number | undefined;
  readonly parts: WindowPart[];
}

export interface RenditionWindowOptions {
  /** File-name stem: `v0`, `a0`, … */
  readonly name: string;
  /** Publication generation carried as `g` in every URI. */
  readonly generation: string;
  /** Complete segments kept (and served) at most. */
  readonly maxSegments: number;
  /** Fixed once from MPD@maxSegmentDuration (RFC 8216bis 6.2.1: it may not change). */
  readonly targetDurationSec: number;
}

/** What a `live/{file}` lookup finds. */
export type WindowFile =
  | { readonly kind: "bytes"; readonly bytes: readonly Buffer[]; readonly byteLength: number }
  | { readonly kind: "future" }
  | { readonly kind: "gone" };

/**
 * The published state of one rendition: init sections, a bounded window of complete
 * segments (with their parts), the parts of the segment being written, and the media
 * playlist rendered from them. Memory is bounded by `maxSegments` segments plus the
 * segment in progress. A part's bytes are copied into the window's slab arena when it is
 * published; an answer writing window bytes holds them (`hold`) until its response closes.
 */
export class RenditionWindow {
  readonly name: string;
  readonly generation: string;
  readonly maps = new Map<number, Buffer>();
  segments: WindowSegment[] = [];
  pending: PendingSegment | undefined;
  /** Set once the engine decides the packaging mode; undefined: no parts are published. */
  partTargetSec: number | undefined;
  /** The longest part the pump's coalescing can produce (see `segmenter/part-coalescer.ts`). */
  partCeilingSec = 0;
  ended = false;
  discontinuitySequence = 0;
  private nextMsnHint: number | undefined;
  /** The shortest part published so far: a segment's last part is at least one chunk. */
  private shortestPartSec = Number.POSITIVE_INFINITY;
  /** The part being received, for streaming a preload-hinted part as it is written. */
  private growing: { msn: number; part: number; bytes: () => readonly Buffer[] } | undefined;
  private growListeners = new Set<() => void>();
  private readonly opts: RenditionWindowOptions;
  private cache = new Map<string, string>();
  private readonly arena = new SlabArena();
  /**
   * What each segment and part is published as, made once per object: the renderer formats
   * an object's lines once (media-playlist.ts), so a render after a new part formats that
   * part, not the whole window.
   */
  private published = new WeakMap<WindowSegment, PublishedSegment>();
  private publishedPart = new WeakMap<WindowPart, PublishedPart>();

  constructor(opts: RenditionWindowOptions) {
    this.opts = opts;
    this.name = opts.name;
    this.generation = opts.generation;
  }

  get targetDurationSec(): number {
    return this.opts.targetDurationSec;
  }

  uri(kind: "segment" | "part" | "map", a: number, b = 0): string {
    const g = `?g=${this.generation}${QUERY_MARK}`;
    if (kind === "map") return `${this.name}-init-${a}.mp4${g}`;
    if (kind === "segment") return `${this.name}-${a}.m4s${g}`;
    return `${this.name}-${a}.${b}.m4s${g}`;
  }

  setMap(index: number, bytes: Buffer): void {
    this.maps.set(index, bytes);
    this.pruneMaps(index);
  }

  /** Only init sections still referenced (and the newest one) stay in memory. */
  private pruneMaps(newest: number): void {
    const used = new Set(this.segments.map((s) => s.mapIndex));
    if (this.pending) used.add(this.pending.mapIndex);
    used.add(newest);
    for (const k of [...this.maps.keys()]) if (!used.has(k)) this.maps.delete(k);
  }

  /** Announces the segment being written (its parts follow with {@link addPart}). */
  begin(msn: number, discontinuity: boolean, mapIndex: number, expectedSec?: number): void {
    this.dropPending();
    this.pending = { msn, discontinuity, mapIndex, expectedSec, parts: [] };
    this.nextMsnHint = msn;
    this.touch();
  }

  /** Publishes the next part of the segment being written; its bytes are copied into the arena. */
  addPart(part: WindowPart): void {
    const p = this.pending;
    if (!p) return;
    p.parts.push({
      bytes: [this.arena.store(part.bytes, part.byteLength)],
      byteLength: part.byteLength,
      durationSec: part.durationSec,
      independent: part.independent,
    });
    if (part.durationSec < this.shortestPartSec) this.shortestPartSec = part.durationSec;
    if (llTraceOn())
      llTrace({
        ev: "part",
        r: this.name,
        msn: p.msn,
        part: p.parts.length - 1,
        dur: part.durationSec,
        ind: part.independent,
      });
    this.touch();
    this.grew();
  }

  /** The segment being written will not complete: its parts leave with it. */
  abandon(): void {
    this.dropPending();
    this.growing = undefined;
    this.touch();
    this.grew();
  }

  private dropPending(): void {
    for (const part of this.pending?.parts ?? []) this.releasePart(part);
    this.pending = undefined;
  }

  private releasePart(part: WindowPart): void {
    for (const b of part.bytes) this.arena.release(b);
  }

  /**
   * Keeps the slabs of `bytes` (what {@link segmentFile} or {@link partFile} returned) from
   * reuse until the function returned is called: an answer calls it when its response closes.
   */
  hold(bytes: readonly Buffer[]): () => void {
    return this.arena.hold(bytes);
  }

  /**
   * More bytes of the part in progress arrived (clear content only: the bytes are final
   * as they arrive). `bytes` returns the part's bytes so far.
   */
  growPart(bytes: () => readonly Buffer[]): void {
    const p = this.pending;
    if (!p) return;
    this.growing = { msn: p.msn, part: p.parts.length, bytes };
    this.grew();
  }

  private grew(): void {
    const list = [...this.growListeners];
    this.growListeners.clear();
    for (const l of list) l();
  }

  /** The bytes received so far of part `part` of segment `msn`, while it is being written. */
  growingPart(msn: number, part: number): readonly Buffer[] | undefined {
    const g = this.growing;
    if (!g || g.msn !== msn || g.part !== part || this.pending?.msn !== msn) return undefined;
    if (this.pending.parts.length !== part) return undefined;
    return g.bytes();
  }

  /** Resolves on the next byte arrival or part publication (or after `ms`). */
  nextGrowth(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.growListeners.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.growListeners.add(done);
    });
  }

  /**
   * Closes the segment in progress. Its parts stay the objects they were published as (so
   * their playlist lines are not formatted again), and the segment is their bytes in order.
   */
  complete(discontinuitySequence: number, programDateTimeMs?: number): WindowSegment | undefined {
    const p = this.pending;
    this.pending = undefined;
    this.growing = undefined;
    this.grew();
    if (!p || p.parts.length === 0) return undefined;
    const seg: WindowSegment = {
      msn: p.msn,
      durationSec: p.parts.reduce((s, x) => s + x.durationSec, 0),
      discontinuity: p.discontinuity,
      mapIndex: p.mapIndex,
      parts: p.parts,
      ...(programDateTimeMs === undefined ? {} : { programDateTimeMs }),
    };
    this.segments.push(seg);
    if (llTraceOn())
      llTrace({
        ev: "segment",
        r: this.name,
        msn: seg.msn,
        dur: seg.durationSec,
        parts: p.parts.length,
      });
    this.nextMsnHint = p.msn + 1;
    while (this.segments.length > this.opts.maxSegments)
      for (const part of this.segments.shift()!.parts) this.releasePart(part);
    this.pruneMaps(p.mapIndex);
    this.discontinuitySequence = discontinuitySequence;
    this.touch();
    return seg;
  }

  /** The source ended (static MPD): EXT-X-ENDLIST. */
  end(): void {
    this.dropPending();
    this.growing = undefined;
    this.grew();
    this.ended = true;
    this.touch();
  }

  private touch(): void {
    this.cache.clear();
  }

  get lastMsn(): number {
    return this.segments.at(-1)?.msn ?? -1;
  }

  /** The newest part: of the segment in progress, else the last part of the last segment. */
  lastPart(): { msn: number; index: number } | undefined {
    if (this.partTargetSec === undefined) return undefined;
    if (this.pending && this.pending.parts.length > 0)
      return { msn: this.pending.msn, index: this.pending.parts.length - 1 };
    const last = this.segments.at(-1);
    return last ? { msn: last.msn, index: last.parts.length - 1 } : undefined;
  }

  edge(): PlaylistEdge {
    const lastPart = this.lastPart();
    return {
      lastMsn: this.lastMsn,
      ...(lastPart ? { lastPart } : {}),
      partCountOf: (msn) => this.segments.find((s) => s.msn === msn)?.parts.length,
      ...(this.partTargetSec === undefined ? {} : { partTargetSec: this.partTargetSec }),
      endList: this.ended,
    };
  }

  report(): RenditionReport {
    const lp = this.lastPart();
    // RFC 8216bis 4.4.5.4: LAST-MSN/LAST-PART of the newest segment or part.
    return {
      uri: `${this.name}.m3u8`,
      lastMsn: lp?.msn ?? this.lastMsn,
      ...(lp ? { lastPart: lp.index } : {}),
    };
  }

  /**
   * The media playlist with {@link QUERY_MARK} where each request's query goes; rendered
   * once per change of the window (or of the sibling reports) and shared by all requests.
   */
  render(skip: "YES" | "v2" | undefined, reports: readonly RenditionReport[]): string {
    const key = `${skip ?? ""}|${reports.map((r) => `${r.uri}:${r.lastMsn}:${r.lastPart}`).join()}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const segments = this.segments.map((s) => this.publishedSegment(s));
    const firstMap = this.segments[0]?.mapIndex ?? this.pending?.mapIndex ?? 0;
    const input: MediaPlaylistInput = {
      targetDurationSec: this.opts.targetDurationSec,
      discontinuitySequence: this.discontinuitySequence,
      mapUri: this.uri("map", firstMap),
      segments,
      endList: this.ended,
      ...(this.partTargetSec === undefined ? {} : { lowLatency: this.lowLatencyInput(reports) }),
    };
    const text = renderMediaPlaylistWithFacts(input, skip === undefined ? {} : { skip }).text;
    this.cache.set(key, text);
    return text;
  }

  private publishedSegment(s: WindowSegment): PublishedSegment {
    let out = this.published.get(s);
    // Made again only if it was made before the packaging mode listed parts (set once).
    if (out === undefined || (out.parts === undefined) !== (this.partTargetSec === undefined)) {
      out = {
        msn: s.msn,
        durationSec: s.durationSec,
        uri: this.uri("segment", s.msn),
        discontinuity: s.discontinuity,
        mapUri: this.uri("map", s.mapIndex),
        ...(s.programDateTimeMs === undefined ? {} : { programDateTimeMs: s.programDateTimeMs }),
        ...(this.partTargetSec === undefined ? {} : { parts: this.publishedParts(s.msn, s.parts) }),
      };
      this.published.set(s, out);
    }
    return out;
  }

  private publishedParts(msn: number, parts: readonly WindowPart[]): PublishedPart[] {
    return parts.map((p, i) => {
      let out = this.publishedPart.get(p);
      if (out === undefined) {
        out = {
          durationSec: p.durationSec,
          uri: this.uri("part", msn, i),
          independent: p.independent,
        };
        this.publishedPart.set(p, out);
      }
      return out;
    });
  }

  /**
   * The part the server will publish next. A pending segment whose parts already cover
   * its MPD duration is complete but for the end of its body, so the next part is the
   * following segment's first: hinting `msn.N` there would announce a part that never
   * comes. "Cover" allows less than half of the shortest part published so far (a part
   * is at least one chunk, so what is left cannot make one more), and at most a quarter
   * part target before any short part was seen: with a quarter part target always, the
   * one-frame tail part a 25-frame segment leaves after three 8-frame parts (40 ms, under
   * 80 ms) was announced as the next segment's first part while it still came.
   */
  private nextPart(): { msn: number; part: number } {
    const p = this.pending;
    if (!p) return { msn: this.nextMsnHint ?? this.lastMsn + 1, part: 0 };
    if (p.expectedSec !== undefined && p.parts.length > 0) {
      const have = p.parts.reduce((s, x) => s + x.durationSec, 0);
      const slack = Math.min((this.partTargetSec ?? 1) / 4, this.shortestPartSec / 2);
      if (have >= p.expectedSec - slack - 1e-9) return { msn: p.msn + 1, part: 0 };
    }
    return { msn: p.msn, part: p.parts.length };
  }

  private lowLatencyInput(reports: readonly RenditionReport[]) {
    const p = this.pending;
    const hint = this.nextPart();
    return {
      partTargetSec: this.partTargetSec ?? 1,
      ...(p ? { pendingParts: this.publishedParts(p.msn, p.parts) } : {}),
      ...(p?.discontinuity ? { pendingDiscontinuity: true } : {}),
      ...(p ? { pendingMapUri: this.uri("map", p.mapIndex) } : {}),
      // RFC 8216bis 4.4.5.3: the part the server will publish next (hls.js needs one).
      preloadHintUri: this.uri("part", hint.msn, hint.part),
      renditionReports: reports,
    };
  }

  /** The next part a preload hint announced, for the "wait and stream it" answer. */
  isHinted(msn: number, part: number): boolean {
    if (this.partTargetSec === undefined || this.ended) return false;
    const next = this.nextPart();
    return msn === next.msn && part === next.part;
  }

  segmentFile(msn: number): WindowFile {
    const s = this.segments.find((x) => x.msn === msn);
    if (s) return partsFile(s.parts);
    return msn > this.lastMsn ? { kind: "future" } : { kind: "gone" };
  }

  partFile(msn: number, part: number): WindowFile {
    const s = this.segments.find((x) => x.msn === msn);
    if (s) {
      const p = s.parts[part];
      return p ? partsFile([p]) : { kind: "gone" };
    }
    if (this.pending && this.pending.msn === msn) {
      const p = this.pending.parts[part];
      return p ? partsFile([p]) : { kind: "future" };
    }
    return msn > this.lastMsn ? { kind: "future" } : { kind: "gone" };
  }

  /** Bytes held in memory (window, parts in progress, init sections). */
  bytesHeld(): number {
    let n = 0;
    for (const s of this.segments) for (const p of s.parts) n += p.byteLength;
    for (const p of this.pending?.parts ?? []) n += p.byteLength;
    for (const m of this.maps.values()) n += m.length;
    return n;
  }
}

/** The bytes of `parts` in order, as one file (their pieces, never joined). */
function partsFile(parts: readonly WindowPart[]): WindowFile {
  if (parts.length === 1)
    return { kind: "bytes", bytes: parts[0]!.bytes, byteLength: parts[0]!.byteLength };
  let byteLength = 0;
  for (const p of parts) byteLength += p.byteLength;
  return { kind: "bytes", bytes: parts.flatMap((p) => p.bytes), byteLength };
}
