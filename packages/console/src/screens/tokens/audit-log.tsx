import { useEffect, useState } from "preact/hooks";
import { messageOf } from "../../api/api-error.js";
import { api } from "../../api/client.js";
import type { AuditRecord } from "../../api/wire.js";
import { type Column, DataTable } from "../../components/data-table.js";
import { formatTime } from "../../components/display-values.js";

const COLUMNS: Column<AuditRecord>[] = [
  { header: "Time", cell: (l) => formatTime(l.created_at) },
  { header: "Token", cell: (l) => l.token_prefix, cellClass: "mono" },
  { header: "Request", cell: (l) => `${l.method} ${l.path}`, cellClass: "wrap" },
  { header: "Scope", cell: (l) => l.required_scope ?? "—" },
  {
    header: "Decision",
    cell: (l) => (
      <span class={l.decision === "allow" ? "badge badge-ok" : "badge badge-bad"}>
        {l.decision}
        {l.reason ? `: ${l.reason}` : ""}
      </span>
    ),
  },
  { header: "Status", cell: (l) => l.status },
  { header: "Remote", cell: (l) => l.remote, class: "hide-narrow" },
];

/** The 100 most recent API-token requests, allowed or denied (`GET /v1/admin/api-token-logs`). */
export function AuditLog() {
  const [logs, setLogs] = useState<AuditRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.apiTokens
      .logs()
      .then((r) => setLogs(r.logs))
      .catch((e) => setError(messageOf(e)));
  }, []);
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Token audit log</h2>
      <DataTable
        columns={COLUMNS}
        rows={logs}
        rowKey={(l) => l.id}
        error={error}
        empty="No token request recorded yet."
      />
    </section>
  );
}
