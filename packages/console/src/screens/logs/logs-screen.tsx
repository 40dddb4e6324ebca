import { useCallback, useEffect, useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { AccessRecord, PlaybackKey } from "../../api/wire.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { formatTime } from "../../components/display-values.js";
import { SelectField } from "../../components/field.js";
import { ActionNotice } from "../../components/notice.js";
import { useAction } from "../../components/use-action.js";

/** Playback access log (`/v1/admin/access-logs`): filter by key, limit, clear. */
export function LogsScreen() {
  const [logs, setLogs] = useState<AccessRecord[]>([]);
  const [keys, setKeys] = useState<PlaybackKey[]>([]);
  const [tokenId, setTokenId] = useState("");
  const [limit, setLimit] = useState("100");
  const [confirmClear, setConfirmClear] = useState(false);
  const action = useAction();

  const reload = useCallback(
    async () =>
      setLogs((await api.accessLogs.list({ limit: Number(limit), token_id: tokenId })).access_logs),
    [limit, tokenId],
  );
  useEffect(() => {
    void action.run(reload);
  }, [reload]);
  useEffect(() => {
    api.playbackKeys
      .list()
      .then((r) => setKeys(r.access_tokens))
      .catch(() => setKeys([]));
  }, []);

  return (
    <section aria-labelledby="logs-title">
      <h1 id="logs-title">Playback access log</h1>
      <div class="toolbar">
        <SelectField
          label="Playback key"
          value={tokenId}
          onChange={setTokenId}
          options={[
            { value: "", label: "All keys" },
            ...keys.map((k) => ({ value: k.id, label: `${k.name} (${k.token_prefix}…)` })),
          ]}
        />
        <SelectField
          label="Records"
          value={limit}
          onChange={setLimit}
          options={["50", "100", "500", "1000"]}
        />
        <div class="toolbar-actions">
          <button type="button" class="btn" onClick={() => action.run(reload)}>
            Refresh
          </button>
          <button type="button" class="btn btn-danger" onClick={() => setConfirmClear(true)}>
            Clear log
          </button>
        </div>
      </div>
      <ActionNotice action={action} />
      {logs.length === 0 ? (
        <p>No access recorded{tokenId ? " for this key" : ""}.</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <caption class="sr-only">Access records</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Key</th>
                <th scope="col">Path</th>
                <th scope="col">Channel</th>
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
                  <td class="wrap mono">{l.path}</td>
                  <td>{l.channel_id ?? "—"}</td>
                  <td>{l.status}</td>
                  <td class="hide-narrow">{l.remote}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={confirmClear}
        title="Clear the access log"
        confirmLabel="Clear"
        onClose={() => setConfirmClear(false)}
        onConfirm={() =>
          void action.run(
            async () => {
              const r = await api.accessLogs.clear();
              await reload();
              return r;
            },
            (r) => `Deleted ${r.deleted} record(s).`,
          )
        }
      >
        <p>Delete every playback access record? This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
