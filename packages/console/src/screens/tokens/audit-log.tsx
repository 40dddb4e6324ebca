import { useEffect, useState } from "preact/hooks";
import { messageOf } from "../../api/api-error.js";
import { api } from "../../api/client.js";
import type { AuditRecord } from "../../api/wire.js";
import { formatTime } from "../../components/display-values.js";
import { ErrorText } from "../../components/notice.js";

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
      <ErrorText text={error} />
      {logs && logs.length === 0 ? <p>No token request recorded yet.</p> : null}
      {logs && logs.length > 0 ? (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Token</th>
                <th scope="col">Request</th>
                <th scope="col">Scope</th>
                <th scope="col">Decision</th>
                <th scope="col">Status</th>
                <th scope="col" class="hide-narrow">
                  Remote
                </th>
              </tr>
            </thead>
            <tbody>
              {logs.map((l) => (
                <tr key={l.id}>
                  <td>{formatTime(l.created_at)}</td>
                  <td class="mono">{l.token_prefix}</td>
                  <td class="wrap">
                    {l.method} {l.path}
                  </td>
                  <td>{l.required_scope ?? "—"}</td>
                  <td>
                    <span class={l.decision === "allow" ? "badge badge-ok" : "badge badge-bad"}>
                      {l.decision}
                      {l.reason ? `: ${l.reason}` : ""}
                    </span>
                  </td>
                  <td>{l.status}</td>
                  <td class="hide-narrow">{l.remote}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
