import { useState } from "preact/hooks";
import { messageOf } from "../../api/api-error.js";
import { api } from "../../api/client.js";
import type { Status } from "../../api/wire.js";
import { formatBytes, formatDuration, formatTime } from "../../components/display-values.js";
import { ErrorText } from "../../components/notice.js";
import { usePolling } from "../../components/use-polling.js";
import { SessionsTable } from "./sessions-table.js";

/** Polling period of `/v1/status` while the tab is visible. */
const POLL_MS = 3000;

/** Live counters and runtime sessions from `GET /v1/status`. */
export function DashboardScreen() {
  const [status, setStatus] = useState<Status | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [at, setAt] = useState<string | null>(null);
  usePolling(async () => {
    try {
      setStatus(await api.status());
      setError(null);
      setAt(new Date().toISOString());
    } catch (err) {
      setError(messageOf(err));
    }
  }, POLL_MS);
  return (
    <section aria-labelledby="dash-title">
      <h1 id="dash-title">Dashboard</h1>
      <p class="muted">
        Refreshes every {POLL_MS / 1000} s while this tab is visible. Last update: {formatTime(at)}
      </p>
      <ErrorText text={error} />
      {status ? (
        <>
          <dl class="stats">
            <div>
              <dt>Uptime</dt>
              <dd data-testid="uptime">{formatDuration(status.uptime_sec)}</dd>
            </div>
            <div>
              <dt>Requests</dt>
              <dd>{status.requests}</dd>
            </div>
            <div>
              <dt>Errors</dt>
              <dd>{status.errors}</dd>
            </div>
            <div>
              <dt>Bytes in</dt>
              <dd>{formatBytes(status.bytes_in)}</dd>
            </div>
            <div>
              <dt>Bytes out</dt>
              <dd>{formatBytes(status.bytes_out)}</dd>
            </div>
            <div>
              <dt>Sessions</dt>
              <dd>{status.session_count}</dd>
            </div>
            <div>
              <dt>Active handles</dt>
              <dd>{status.goroutines}</dd>
            </div>
          </dl>
          <SessionsTable sessions={status.sessions} />
        </>
      ) : (
        !error && <p role="status">Loading status…</p>
      )}
    </section>
  );
}
