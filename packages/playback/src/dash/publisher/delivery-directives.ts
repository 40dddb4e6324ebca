// RFC 8216bis 6.2.5 Delivery Directives: query parameters starting with "_HLS_" are
// reserved; _HLS_msn, _HLS_part (6.2.5.2 Blocking Playlist Reload) and _HLS_skip
// (6.2.5.1 Playlist Delta Updates) are defined.

export interface DeliveryDirectives {
  readonly msn?: number;
  readonly part?: number;
  readonly skip?: "YES" | "v2";
}

/** A 400-class rejection, shaped for the gateway's `invalid_request` error. */
export interface DirectiveError {
  readonly status: 400;
  readonly code: "invalid_request";
  readonly message: string;
}

export type DirectiveResult =
  | ({ readonly ok: true } & DeliveryDirectives)
  | { readonly ok: false; readonly error: DirectiveError };

const bad = (message: string): DirectiveResult => ({
  ok: false,
  error: { status: 400, code: "invalid_request", message },
});

function decimalInteger(name: string, raw: string): number | string {
  // RFC 8216bis 4.2: decimal-integer is an unquoted string of digits 0-9.
  if (!/^\d{1,16}$/.test(raw)) return `${name} must be a decimal integer`;
  const v = Number(raw);
  return Number.isSafeInteger(v) ? v : `${name} is too large`;
}

/**
 * Parse and validate the delivery directives of a media playlist request.
 * @example parseDeliveryDirectives('_HLS_msn=12&_HLS_part=3') // {ok:true, msn:12, part:3}
 */
export function parseDeliveryDirectives(query: string | URLSearchParams): DirectiveResult {
  const params =
    typeof query === "string"
      ? new URLSearchParams(query.startsWith("?") ? query.slice(1) : query)
      : query;
  const out: { msn?: number; part?: number; skip?: "YES" | "v2" } = {};
  for (const name of ["_HLS_msn", "_HLS_part", "_HLS_skip"] as const) {
    const values = params.getAll(name);
    if (values.length > 1) return bad(`${name} is given more than once`);
    const raw = values[0];
    if (raw === undefined) continue;
    if (name === "_HLS_skip") {
      if (raw !== "YES" && raw !== "v2") return bad("_HLS_skip must be YES or v2");
      out.skip = raw;
      continue;
    }
    const v = decimalInteger(name, raw);
    if (typeof v === "string") return bad(v);
    if (name === "_HLS_msn") out.msn = v;
    else out.part = v;
  }
  // 6.2.5.2: "_HLS_part directive but no _HLS_msn directive" -> Bad Request.
  if (out.part !== undefined && out.msn === undefined) return bad("_HLS_part requires _HLS_msn");
  return { ok: true, ...out };
}

/** What the playlist currently holds. */
export interface PlaylistEdge {
  /** MSN of the last complete Media Segment. */
  readonly lastMsn: number;
  /** Newest listed part: its MSN (may be lastMsn + 1, the segment being written) and index. */
  readonly lastPart?: { readonly msn: number; readonly index: number };
  /** Number of parts of completed segments still known, to map a too-large part index. */
  readonly partCountOf?: (msn: number) => number | undefined;
  readonly partTargetSec?: number;
  readonly endList?: boolean;
}

export type BlockingDecision =
  | { readonly action: "respond" }
  | { readonly action: "wait" }
  | { readonly action: "reject"; readonly error: DirectiveError };

function partAvailable(edge: PlaylistEdge, msn: number, part: number): boolean {
  // 6.2.5.2: a part index past the final part of its parent means part 0 of the next segment.
  const count = msn <= edge.lastMsn ? edge.partCountOf?.(msn) : undefined;
  if (count !== undefined && part >= count) return partAvailable(edge, msn + 1, 0);
  if (msn <= edge.lastMsn && count === undefined) return true;
  const last = edge.lastPart;
  if (!last) return msn <= edge.lastMsn;
  return msn < last.msn || (msn === last.msn && part <= last.index);
}

/**
 * Decide a blocking playlist request (RFC 8216bis 6.2.5.2):
 * - with EXT-X-ENDLIST the directives are ignored: respond;
 * - _HLS_msn beyond the last segment's MSN + 2, or _HLS_part beyond the last part by more
 *   than the Advance Part Limit (3 / PART-TARGET when that is under 1 s, else 3): reject 400;
 * - respond once the playlist holds segment M (or part N of M), else wait.
 */
export function decideBlockingReload(d: DeliveryDirectives, edge: PlaylistEdge): BlockingDecision {
  if (edge.endList || d.msn === undefined) return { action: "respond" };
  if (d.msn > edge.lastMsn + 2) {
    return {
      action: "reject",
      error: {
        status: 400,
        code: "invalid_request",
        message: `_HLS_msn ${d.msn} is more than two segments ahead of ${edge.lastMsn}`,
      },
    };
  }
  if (d.part === undefined)
    return d.msn <= edge.lastMsn ? { action: "respond" } : { action: "wait" };
  const last = edge.lastPart;
  if (last && d.msn === last.msn) {
    const target = edge.partTargetSec ?? 1;
    const limit = target < 1 ? 3 / target : 3;
    if (d.part - last.index > limit) {
      return {
        action: "reject",
        error: {
          status: 400,
          code: "invalid_request",
          message: `_HLS_part ${d.part} is beyond the advance part limit`,
        },
      };
    }
  }
  return partAvailable(edge, d.msn, d.part) ? { action: "respond" } : { action: "wait" };
}

/**
 * How long to hold a blocking request: RFC 8216bis 6.2.5.2 suggests answering 503 after
 * three target durations; the gateway caps blocking at 15 s.
 */
export function blockingTimeoutMs(targetDurationSec: number, capMs = 15_000): number {
  return Math.min(capMs, Math.ceil(3 * targetDurationSec * 1000));
}
