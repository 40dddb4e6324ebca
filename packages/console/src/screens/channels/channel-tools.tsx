import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { Channel, ProbeAnswer } from "../../api/wire.js";
import { ActionButton } from "../../components/action-button.js";
import { Card } from "../../components/card.js";
import { Detail } from "../../components/detail-list.js";
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
    <Card titleId="tools-title" title={`Tools for ${channel.title}`}>
      <div class="row-actions">
        <ActionButton
          action={action}
          run={() => {
            setProbe(null);
            return api.channels.probe(id);
          }}
          onValue={setProbe}
        >
          Probe source
        </ActionButton>
        <ActionButton
          action={action}
          run={() => api.channels.warmup(id)}
          done={(r) => `Session ${r.state}.`}
        >
          Warm up
        </ActionButton>
        <ActionButton
          action={action}
          run={() => api.channels.stopSession(id)}
          done="Session stopped."
        >
          Stop session
        </ActionButton>
        <ActionButton
          action={action}
          primary
          run={() => api.channels.preview(id)}
          onValue={(r) => setPreview({ url: r.play_url, expires: r.expires_at })}
        >
          Preview
        </ActionButton>
      </div>
      <ActionNotice action={action} />
      {probe ? <ProbeResult probe={probe} /> : null}
      {preview ? (
        <>
          <p class="muted">Preview token valid until {formatTime(preview.expires)}.</p>
          <PreviewPlayer url={preview.url} title={channel.title} />
        </>
      ) : null}
    </Card>
  );
}

function ProbeResult({ probe }: { probe: ProbeAnswer }) {
  // A non-DASH probe says what the source answered; a DASH probe inspects the MPD.
  const http = "final_url" in probe ? probe : undefined;
  const inspection = "inspection" in probe ? probe.inspection : null;
  return (
    <dl class="kv" data-testid="probe-result">
      <Detail term="Outcome">
        <span class={probe.ok ? "badge badge-ok" : "badge badge-bad"}>
          {probe.ok ? "reachable" : "failed"}
        </span>
      </Detail>
      <Detail term="Status">{http?.status}</Detail>
      <Detail term="Content type">{http?.content_type}</Detail>
      <Detail term="Final URL" wrap>
        {http?.final_url}
      </Detail>
      <Detail term="Time">{`${probe.dur_ms} ms`}</Detail>
      <Detail term="Error" wrap>
        {probe.error}
      </Detail>
      {inspection ? (
        <>
          <Detail term="Native engine">
            {inspection.native_supported ? "supported" : "not supported"}
          </Detail>
          <Detail term="Suggested engine">{inspection.suggested_engine}</Detail>
          <Detail term="Reason" wrap>
            {inspection.reason}
          </Detail>
          <Detail term="Encrypted">
            {inspection.encrypted ? `yes (${inspection.kids.join(", ")})` : "no"}
          </Detail>
        </>
      ) : null}
    </dl>
  );
}
