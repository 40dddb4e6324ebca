import type { RuntimeSession } from "../../api/wire.js";
import { formatTime } from "../../components/display-values.js";

/**
 * Runtime sessions with state, engine, fallback reason, last error and packager counters;
 * in cluster mode also the instance that packages each (another instance's show as remote).
 */
export function SessionsTable({ sessions }: { sessions: RuntimeSession[] }) {
  if (sessions.length === 0) return <p>No runtime session is running.</p>;
  const cluster = sessions.some((s) => s.owner !== undefined);
  return (
    <div class="table-wrap">
      <table class="table">
        <caption>Runtime sessions</caption>
        <thead>
          <tr>
            <th scope="col">Channel</th>
            <th scope="col">State</th>
            <th scope="col">Engine</th>
            <th scope="col">Mode</th>
            <th scope="col">Fallback reason</th>
            <th scope="col">Errors</th>
            <th scope="col">Last error</th>
            <th scope="col">Started</th>
            <th scope="col">Packager</th>
            {cluster && <th scope="col">Instance</th>}
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr key={s.channel_id}>
              <td>{s.channel_id}</td>
              <td>
                <span class={`badge badge-${s.state}`}>{s.state}</span>
              </td>
              <td>{s.engine ?? "—"}</td>
              <td>
                {s.mode ?? "—"} / {s.pack_mode}
              </td>
              <td>{s.fallback_reason ?? "—"}</td>
              <td>{s.errors ?? "—"}</td>
              <td class="wrap">{s.last_error ?? "—"}</td>
              <td>{formatTime(s.started_at)}</td>
              <td class="wrap">
                {s.packager
                  ? Object.entries(s.packager)
                      .filter(([, v]) => typeof v === "number" || typeof v === "string")
                      .map(([k, v]) => `${k}: ${String(v)}`)
                      .join(", ")
                  : "—"}
              </td>
              {cluster && <td class="wrap">{s.owner_url || s.owner || "—"}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
