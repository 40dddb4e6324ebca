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

const COLUMNS: Column<RuntimeSession>[] = [
  { header: "Channel", cell: (s) => s.channel_id },
  { header: "State", cell: (s) => <span class={`badge badge-${s.state}`}>{s.state}</span> },
  { header: "Engine", cell: (s) => dash(s.engine) },
  { header: "Mode", cell: (s) => `${s.mode ?? "—"} / ${s.pack_mode}` },
  { header: "Fallback reason", cell: (s) => dash(s.fallback_reason) },
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
 * Runtime sessions with state, engine, fallback reason, last error and packager counters;
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
