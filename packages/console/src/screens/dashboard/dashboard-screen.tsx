import { useState } from "preact/hooks";
import { messageOf } from "../../api/api-error.js";
import { api } from "../../api/client.js";
import type { Status } from "../../api/wire.js";
import { formatBytes, formatDuration, formatTime } from "../../components/display-values.js";
import { ErrorText } from "../../components/notice.js";
import { Screen } from "../../components/screen.js";
import { usePolling } from "../../components/use-polling.js";
import { SessionsTable } from "./sessions-table.js";

/** Polling period of `/v1/status` while the tab is visible. */
const POLL_MS = 3000;

/** The counters of the dashboard, in the order shown. */
const STATS: readonly { term: string; value: (s: Status) => string | number; testId?: string }[] = [
  { term: "Uptime", value: (s) => formatDuration(s.uptime_sec), testId: "uptime" },
  { term: "Requests", value: (s) => s.requests },
  { term: "Errors", value: (s) => s.errors },
  { term: "Bytes in", value: (s) => formatBytes(s.bytes_in) },
  { term: "Bytes out", value: (s) => formatBytes(s.bytes_out) },
  { term: "Sessions", value: (s) => s.session_count },
  { term: "Active handles", value: (s) => s.goroutines },
];

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
    <Screen titleId="dash-title" title="Dashboard">
      <p class="muted">
        Refreshes every {POLL_MS / 1000} s while this tab is visible. Last update: {formatTime(at)}
      </p>
      <ErrorText text={error} />
      {status ? (
        <>
          <dl class="stats">
            {STATS.map((stat) => (
              <div key={stat.term}>
                <dt>{stat.term}</dt>
                <dd data-testid={stat.testId}>{stat.value(status)}</dd>
              </div>
            ))}
          </dl>
          <SessionsTable sessions={status.sessions} />
        </>
      ) : (
        !error && <p role="status">Loading status…</p>
      )}
    </Screen>
  );
}
