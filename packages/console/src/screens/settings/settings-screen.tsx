import { useState } from "preact/hooks";
import { isConflict } from "../../api/api-error.js";
import { api } from "../../api/client.js";
import { Card } from "../../components/card.js";
import { formatTime } from "../../components/display-values.js";
import { CheckboxField, TextField } from "../../components/field.js";
import { ActionNotice } from "../../components/notice.js";
import { Screen } from "../../components/screen.js";
import { useAction } from "../../components/use-action.js";
import { useDocument } from "../../components/use-document.js";

/** `GET`/`PUT /v1/admin/settings`: runtime values, config-file values read-only, TLS state. */
export function SettingsScreen() {
  const [baseUrl, setBaseUrl] = useState("");
  const [retention, setRetention] = useState("30");
  const [tls, setTls] = useState(false);
  const [stale, setStale] = useState(false);
  const action = useAction();
  const {
    doc: s,
    setDoc: setS,
    reload: load,
  } = useDocument(action, api.settings.get, (r) => {
    setBaseUrl(r.public_base_url);
    setRetention(r.access_log_retention_days);
    setTls(r.tls_enabled);
    setStale(false);
  });

  const save = async () => {
    if (s === null) return;
    const tlsChanged = tls !== s.tls_enabled;
    await action.run(
      async () => {
        try {
          const r = await api.settings.update(s.revision, {
            public_base_url: baseUrl,
            access_log_retention_days: retention,
            tls_enabled: tls,
          });
          setS(r);
        } catch (err) {
          if (isConflict(err)) setStale(true);
          throw err;
        }
      },
      tlsChanged ? "Saved. The TLS change applies at the next start of the gateway." : "Saved.",
    );
  };

  if (s === null)
    return (
      <Screen titleId="settings-title" title="Settings">
        <ActionNotice action={action} />
      </Screen>
    );
  return (
    <Screen titleId="settings-title" title="Settings">
      <Card titleId="runtime-title" title="Runtime settings" onSubmit={() => void save()}>
        <p class="muted">Revision {s.revision}</p>
        {stale ? (
          <div class="conflict" role="alert">
            <p>The settings changed since you opened them; nothing was saved.</p>
            <button type="button" class="btn" onClick={() => action.run(load, "Reloaded.")}>
              Reload settings
            </button>
          </div>
        ) : null}
        <TextField
          label="Public base URL"
          type="url"
          value={baseUrl}
          onInput={setBaseUrl}
          hint="Blank: URLs follow the request's Host. Applies at once."
        />
        <TextField
          label="Access log retention (days)"
          value={retention}
          onInput={setRetention}
          hint="1 to 3650. Applies at once."
        />
        <CheckboxField
          label="TLS listener enabled"
          checked={tls}
          onChange={setTls}
          hint="Applies at the next start (restart needed)."
        />
        <ActionNotice action={action} />
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          Save settings
        </button>
      </Card>
      <Card titleId="tls-title" title="TLS">
        <dl class="kv">
          <dt>TLS listener</dt>
          <dd>{s.tls_listen || "not configured"}</dd>
          <dt>Split listening</dt>
          <dd>{s.split_listening ? "yes" : "no"}</dd>
          <dt>Enabled (stored)</dt>
          <dd>{s.tls_enabled ? "yes" : "no"} — changes apply after a restart</dd>
          <dt>Certificate</dt>
          <dd>{s.certificate.source === "none" ? "none" : s.certificate.path}</dd>
          {s.certificate.hosts.length > 0 ? (
            <>
              <dt>Names</dt>
              <dd>{s.certificate.hosts.join(", ")}</dd>
            </>
          ) : null}
          {s.certificate.expires_at ? (
            <>
              <dt>Expires</dt>
              <dd>{formatTime(s.certificate.expires_at)}</dd>
            </>
          ) : null}
          {s.certificate.error ? (
            <>
              <dt>Certificate error</dt>
              <dd class="wrap">{s.certificate.error}</dd>
            </>
          ) : null}
        </dl>
      </Card>
      <Card titleId="file-title" title="From the config file (restart to change)">
        <dl class="kv">
          <dt>Listen</dt>
          <dd>{s.listen}</dd>
          <dt>Playback needs auth</dt>
          <dd>{s.play_require_auth ? "yes" : "no"}</dd>
          <dt>CORS origins</dt>
          <dd>{s.cors_origins.join(", ") || "none (same origin only)"}</dd>
          <dt>Public hosts</dt>
          <dd>{s.public_hosts.join(", ") || "any"}</dd>
        </dl>
      </Card>
    </Screen>
  );
}
