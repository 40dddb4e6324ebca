import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { Channel, ProbeAnswer } from "../../api/wire.js";
import { formatTime } from "../../components/display-values.js";
import { ActionNotice } from "../../components/notice.js";
import { useAction } from "../../components/use-action.js";
import { PreviewPlayer } from "./preview-player.js";

/** Probe, warm up, stop the session and preview one channel (spec "Sessions, probes, previews"). */
export function ChannelTools({ channel }: { channel: Channel }) {
  const action = useAction();
  const [probe, setProbe] = useState<ProbeAnswer | null>(null);
  const [preview, setPreview] = useState<{ url: string; expires: string } | null>(null);
  const id = channel.id;
  return (
    <section class="card" aria-labelledby="tools-title">
      <h2 id="tools-title">Tools for {channel.title}</h2>
      <div class="row-actions">
        <button
          type="button"
          class="btn"
          disabled={action.busy}
          onClick={async () => {
            setProbe(null);
            const r = await action.run(() => api.channels.probe(id));
            if (r) setProbe(r);
          }}
        >
          Probe source
        </button>
        <button
          type="button"
          class="btn"
          disabled={action.busy}
          onClick={() =>
            action.run(
              () => api.channels.warmup(id),
              (r) => `Session ${r.state}.`,
            )
          }
        >
          Warm up
        </button>
        <button
          type="button"
          class="btn"
          disabled={action.busy}
          onClick={() => action.run(() => api.channels.stopSession(id), "Session stopped.")}
        >
          Stop session
        </button>
        <button
          type="button"
          class="btn btn-primary"
          disabled={action.busy}
          onClick={async () => {
            const r = await action.run(() => api.channels.preview(id));
            if (r) setPreview({ url: r.play_url, expires: r.expires_at });
          }}
        >
          Preview
        </button>
      </div>
      <ActionNotice action={action} />
      {probe ? <ProbeResult probe={probe} /> : null}
      {preview ? (
        <>
          <p class="muted">Preview token valid until {formatTime(preview.expires)}.</p>
          <PreviewPlayer url={preview.url} title={channel.title} />
        </>
      ) : null}
    </section>
  );
}

function ProbeResult({ probe }: { probe: ProbeAnswer }) {
  // A non-DASH probe says what the source answered; a DASH probe inspects the MPD.
  const http = "final_url" in probe ? probe : undefined;
  const inspection = "inspection" in probe ? probe.inspection : null;
  return (
    <dl class="kv" data-testid="probe-result">
      <dt>Outcome</dt>
      <dd>
        <span class={probe.ok ? "badge badge-ok" : "badge badge-bad"}>
          {probe.ok ? "reachable" : "failed"}
        </span>
      </dd>
      {http !== undefined ? (
        <>
          <dt>Status</dt>
          <dd>{http.status}</dd>
        </>
      ) : null}
      {http?.content_type ? (
        <>
          <dt>Content type</dt>
          <dd>{http.content_type}</dd>
        </>
      ) : null}
      {http?.final_url ? (
        <>
          <dt>Final URL</dt>
          <dd class="wrap">{http.final_url}</dd>
        </>
      ) : null}
      <dt>Time</dt>
      <dd>{probe.dur_ms} ms</dd>
      {probe.error ? (
        <>
          <dt>Error</dt>
          <dd class="wrap">{probe.error}</dd>
        </>
      ) : null}
      {inspection ? (
        <>
          <dt>Native engine</dt>
          <dd>{inspection.native_supported ? "supported" : "not supported"}</dd>
          <dt>Suggested engine</dt>
          <dd>{inspection.suggested_engine}</dd>
          {inspection.reason ? (
            <>
              <dt>Reason</dt>
              <dd class="wrap">{inspection.reason}</dd>
            </>
          ) : null}
          <dt>Encrypted</dt>
          <dd>{inspection.encrypted ? `yes (${inspection.kids.join(", ")})` : "no"}</dd>
        </>
      ) : null}
    </dl>
  );
}
