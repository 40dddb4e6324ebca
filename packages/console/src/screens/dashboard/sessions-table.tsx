import type { RuntimeSession } from "../../api/wire.js";
import { type Column, DataTable } from "../../components/data-table.js";
import { formatTime } from "../../components/display-values.js";

const dash = (v: string | number | null | undefined) => v ?? "—";

function packagerOf(s: RuntimeSession): string {
  if (!s.packager) return "—";
  return Object.entries(s.packager)
    .filter(([, v]) => typeof v === "number" || typeof v === "string")
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(", ");
}

/** A number of the `packager` counters, when the session reports it. */
function counter(s: RuntimeSession, key: string): number | undefined {
  const v = s.packager?.[key];
  return typeof v === "number" ? v : undefined;
}

/** `ts` sessions: their `stream.ts` viewers now (HLS viewers are not counted per session). */
function viewersOf(s: RuntimeSession): string {
  const n = counter(s, "stream_viewers");
  return s.mode === "ts" && n !== undefined ? String(n) : "—";
}

/** `ts` sessions: the bit rate read from the source. */
function inputOf(s: RuntimeSession): string {
  const bps = counter(s, "input_bps");
  if (s.mode !== "ts" || bps === undefined) return "—";
  return bps >= 1_000_000
    ? `${(bps / 1_000_000).toFixed(1)} Mbit/s`
    : `${Math.round(bps / 1000)} kbit/s`;
}

/** Channels with fallback sources: the source in use (docs/failover.md); others "—". */
function sourceOf(s: RuntimeSession): string {
  if (s.active_source === undefined) return "—";
  return s.active_source === 0 ? "primary" : `fallback ${s.active_source}`;
}

const COLUMNS: Column<RuntimeSession>[] = [
  { header: "Channel", cell: (s) => s.channel_id },
  { header: "State", cell: (s) => <span class={`badge badge-${s.state}`}>{s.state}</span> },
  { header: "Engine", cell: (s) => dash(s.engine) },
  { header: "Mode", cell: (s) => `${s.mode ?? "—"} / ${s.pack_mode}` },
  { header: "TS viewers", cell: viewersOf },
  { header: "Input", cell: inputOf },
  { header: "Fallback reason", cell: (s) => dash(s.fallback_reason) },
  { header: "Source", cell: sourceOf },
  { header: "Failovers", cell: (s) => dash(s.failovers) },
  { header: "Errors", cell: (s) => dash(s.errors) },
  { header: "Last error", cell: (s) => dash(s.last_error), cellClass: "wrap" },
  { header: "Started", cell: (s) => formatTime(s.started_at) },
  { header: "Packager", cell: packagerOf, cellClass: "wrap" },
];

const INSTANCE: Column<RuntimeSession> = {
  header: "Instance",
  cell: (s) => s.owner_url || s.owner || "—",
  cellClass: "wrap",
};

/**
 * Runtime sessions with state, engine, fallback reason, last error and packager counters
 * (`ts` sessions also their `stream.ts` viewers and input bit rate; channels with fallback
 * sources the source in use and their failovers);
 * in cluster mode also the instance that packages each (another instance's show as remote).
 */
export function SessionsTable({ sessions }: { sessions: RuntimeSession[] }) {
  const cluster = sessions.some((s) => s.owner !== undefined);
  return (
    <DataTable
      caption="Runtime sessions"
      columns={[...COLUMNS, cluster && INSTANCE]}
      rows={sessions}
      rowKey={(s) => s.channel_id}
      empty="No runtime session is running."
    />
  );
}
