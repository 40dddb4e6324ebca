import type { Upstream } from "../../api/wire.js";
import { Fieldset } from "../../components/field.js";
import { changedFields } from "./channel-draft.js";
import { ChannelDrmSection } from "./channel-drm-section.js";
import { ChannelEgressSection } from "./channel-egress-section.js";
import { ChannelGuideSection } from "./channel-guide-section.js";
import { ChannelHeadersSection } from "./channel-headers-section.js";
import { ChannelPlaybackSection } from "./channel-playback-section.js";
import { ChannelSourceSection } from "./channel-source-section.js";
import { ConflictPanel } from "./conflict-panel.js";
import { FallbackSourcesEditor } from "./fallback-sources-editor.js";
import { useChannelDraft } from "./use-channel-draft.js";

/**
 * Create or edit one channel: the draft and its save live in `useChannelDraft`,
 * each group of fields in its own section.
 */
export function ChannelForm(p: {
  id: string | null;
  upstreams: Upstream[];
  onSaved: (id: string) => void;
  onCancel: () => void;
}) {
  const d = useChannelDraft(p.id, p.onSaved);
  const section = { draft: d.draft, set: d.set, err: d.err, errAt: d.errAt };
  return (
    <form
      class="card channel-form"
      onSubmit={(e) => {
        e.preventDefault();
        d.submit();
      }}
      aria-labelledby="channel-form-title"
      noValidate
    >
      <h2 id="channel-form-title">{p.id === null ? "New channel" : `Edit ${p.id}`}</h2>
      {d.loaded ? (
        <p class="muted">
          Revision {d.loaded.revision}
          {changedFields(d.loaded.base, d.draft).length > 0 ? " · unsaved changes" : ""}
        </p>
      ) : null}
      {d.conflict && d.loaded ? (
        <ConflictPanel
          base={d.loaded.base}
          mine={d.draft}
          conflict={d.conflict}
          onReload={d.takeTheirs}
          onReapply={d.reapply}
        />
      ) : null}
      {d.error ? (
        <p class="notice notice-error" role="alert">
          {d.error}
        </p>
      ) : null}
      {d.saved ? (
        <p class="notice notice-ok" role="status">
          {d.saved}
        </p>
      ) : null}
      {d.busy || d.loading ? (
        <p class="notice notice-busy" role="status">
          <span class="spinner" aria-hidden="true" /> Working…
        </p>
      ) : null}
      <fieldset class="form-body" disabled={d.loading} aria-busy={d.loading}>
        <ChannelSourceSection {...section} isNew={p.id === null} upstreams={p.upstreams} />
        <Fieldset legend="Guide">
          <ChannelGuideSection {...section} />
        </Fieldset>
        <Fieldset legend="Playback">
          <ChannelPlaybackSection {...section} />
        </Fieldset>
        <ChannelEgressSection {...section} />
        <ChannelHeadersSection {...section} />
        <FallbackSourcesEditor {...section} upstreams={p.upstreams} />
        <ChannelDrmSection draft={d.draft} />
      </fieldset>
      <div class="row-actions">
        <button type="submit" class="btn btn-primary" disabled={d.busy || d.loading}>
          {p.id === null ? "Create channel" : "Save channel"}
        </button>
        <button type="button" class="btn" onClick={p.onCancel}>
          Close
        </button>
      </div>
    </form>
  );
}
