import { type Aggregator, AggregatorRegistry, type Registry } from "prom-client";
import type { GatewayMetrics, PlaybackStats } from "./gateway-metrics.js";

/**
 * Workers (`server.workers` > 1, docs/cluster.md "Workers"): `/metrics` and the counters of
 * `/v1/status` are the whole gateway's. The worker that answers gathers the other workers'
 * parts over IPC through the primary (`WorkerLink.gather`) and merges them with its own.
 */
export interface WorkerPeers {
  /** The gateway's start (the primary's), which `uptime_sec` counts from. */
  readonly startedAt: number;
  /**
   * The other workers' parts of `what` ({@link gatherPart} in each of them): what arrived
   * within the primary's bounded wait, and how many workers did not answer in it.
   */
  gather(
    what: GatherWhat,
  ): Promise<{ readonly parts: readonly unknown[]; readonly missing: number }>;
}

export type GatherWhat = "metrics" | "status";

/** What a worker gives for `/v1/status`: its playback counters and its `goroutines`. */
export interface StatusPart extends PlaybackStats {
  readonly goroutines: number;
}

type MetricsJson = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>;

/**
 * How a metric is merged when it is not a sum (prom-client's `aggregator`; counters,
 * histograms and the other gauges sum, and prom-client's default metrics carry their own:
 * event-loop lag averaged, min and max, `nodejs_version_info` the first). Here:
 * - `process_start_time_seconds`: the oldest worker's start (prom-client omits it);
 * - `process_max_fds`: a limit of each process, the same in every worker, not a sum.
 */
const AGGREGATORS: ReadonlyMap<string, Aggregator> = new Map([
  ["svc_process_start_time_seconds", "min"],
  ["svc_process_max_fds", "first"],
]);

/**
 * IPC carries JSON: a value that JSON cannot hold (NaN, ±Infinity, as an event-loop
 * figure can be before its first sample) travels as a string and is read back.
 */
const SPECIAL = new Map<string, number>([
  ["NaN", Number.NaN],
  ["+Inf", Number.POSITIVE_INFINITY],
  ["-Inf", Number.NEGATIVE_INFINITY],
]);

function encodeValue(v: number): number | string {
  if (Number.isFinite(v)) return v;
  if (Number.isNaN(v)) return "NaN";
  return v > 0 ? "+Inf" : "-Inf";
}

/** This worker's part of a gather of `what` (the other side of {@link WorkerPeers.gather}). */
export async function gatherPart(
  what: string,
  sources: { metrics: GatewayMetrics | undefined; status: () => StatusPart },
): Promise<unknown> {
  if (what === "status") return sources.status();
  if (what !== "metrics" || sources.metrics === undefined) return undefined;
  const json = await sources.metrics.registry.getMetricsAsJSON();
  return json.map((m) => ({
    name: m.name,
    help: m.help,
    type: m.type,
    aggregator: m.aggregator,
    values: m.values.map((v) => ({ ...v, value: encodeValue(v.value) })),
  }));
}

/** A gathered metrics part back to prom-client's shape; undefined when it is not one. */
function decodeMetrics(part: unknown): MetricsJson | undefined {
  if (!Array.isArray(part)) return undefined;
  const out: MetricsJson = [];
  for (const m of part as { name?: unknown; values?: unknown }[]) {
    if (typeof m?.name !== "string" || !Array.isArray(m.values)) return undefined;
    const values = (m.values as { value: unknown }[]).map((v) => ({
      ...v,
      value: typeof v.value === "number" ? v.value : (SPECIAL.get(String(v.value)) ?? Number.NaN),
    }));
    out.push({ ...(m as MetricsJson[number]), values } as MetricsJson[number]);
  }
  return out;
}

/**
 * The `/metrics` text: this process's registry alone, or with workers the merge of every
 * worker's that answered within the wait (a worker that did not is left out of the sums).
 */
export async function gatewayMetricsText(
  metrics: GatewayMetrics,
  peers: WorkerPeers | undefined,
): Promise<string> {
  if (peers === undefined) return metrics.registry.metrics();
  const [own, gathered] = await Promise.all([
    metrics.registry.getMetricsAsJSON(),
    peers.gather("metrics"),
  ]);
  // Own first: a `first` aggregator takes the answering worker's value.
  const all = [own, ...gathered.parts.map(decodeMetrics).filter((p) => p !== undefined)].map(
    (part) =>
      part.map((m) => {
        const aggregator = AGGREGATORS.get(m.name);
        return aggregator === undefined ? m : { ...m, aggregator };
      }),
  );
  return AggregatorRegistry.aggregate(all).metrics();
}

function isStatusPart(p: unknown): p is StatusPart {
  if (typeof p !== "object" || p === null) return false;
  const r = p as Record<string, unknown>;
  return ["bytes_in", "bytes_out", "requests", "errors", "goroutines"].every(
    (k) => typeof r[k] === "number" && Number.isFinite(r[k]),
  );
}

/** The `/v1/status` counters of the whole gateway: this worker's plus every other's that answered. */
export async function gatewayStatusCounters(
  own: StatusPart,
  peers: WorkerPeers | undefined,
): Promise<StatusPart> {
  if (peers === undefined) return own;
  const { parts } = await peers.gather("status");
  const sum = {
    bytes_in: own.bytes_in,
    bytes_out: own.bytes_out,
    requests: own.requests,
    errors: own.errors,
    goroutines: own.goroutines,
  };
  for (const p of parts) {
    if (!isStatusPart(p)) continue;
    sum.bytes_in += p.bytes_in;
    sum.bytes_out += p.bytes_out;
    sum.requests += p.requests;
    sum.errors += p.errors;
    sum.goroutines += p.goroutines;
  }
  return sum;
}
