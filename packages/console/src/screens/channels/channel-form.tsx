import { useEffect, useRef, useState } from "preact/hooks";
import { isConflict, messageOf } from "../../api/api-error.js";
import { api } from "../../api/client.js";
import type { Upstream } from "../../api/wire.js";
import { CheckboxField, Fieldset, SelectField, TextField } from "../../components/field.js";
import {
  type ChannelDraft,
  changedFields,
  draftOf,
  EMPTY_DRAFT,
  fieldErrorOf,
  writeOf,
} from "./channel-draft.js";
import { ConflictPanel } from "./conflict-panel.js";
import { HeadersEditor } from "./headers-editor.js";

interface Loaded {
  /** The draft as the server had it when loaded: the base of the conflict comparison. */
  base: ChannelDraft;
  revision: number;
}

export interface Conflict {
  theirs: ChannelDraft;
  revision: number;
}

/**
 * Create or edit one channel. An edit keeps the revision it loaded and sends it
 * as `If-Match`; a 409 never overwrites: the conflict panel shows what changed.
 */
export function ChannelForm(p: {
  id: string | null;
  upstreams: Upstream[];
  onSaved: (id: string) => void;
  onCancel: () => void;
}) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [draft, setDraft] = useState<ChannelDraft>(EMPTY_DRAFT);
  /** The stored channel is being read: the fields are locked so no typing is overwritten. */
  const [loading, setLoading] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldError, setFieldError] = useState<{ field: string; message: string } | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  /** The last save's notice, shown only while the form still edits that channel. */
  const [saved, setSaved] = useState<{ id: string; text: string } | null>(null);
  /** The channel the form edits now: a save that settles after a switch leaves the form alone. */
  const editing = useRef(p.id);
  editing.current = p.id;

  useEffect(() => {
    setConflict(null);
    setError(null);
    setFieldError(null);
    if (p.id === null) {
      setLoaded(null);
      setDraft(EMPTY_DRAFT);
      return;
    }
    let live = true;
    setLoading(true);
    api.channels
      .get(p.id)
      .then((d) => {
        if (!live) return;
        const base = draftOf(d);
        setLoaded({ base, revision: d.revision });
        setDraft(base);
      })
      .catch((err) => live && setError(messageOf(err)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [p.id]);

  const set = <K extends keyof ChannelDraft>(k: K, value: ChannelDraft[K]) =>
    setDraft((d) => ({ ...d, [k]: value }));
  const err = (field: string) => (fieldError?.field === field ? fieldError.message : undefined);

  const save = async (what: ChannelDraft, revision: number | null) => {
    setBusy(true);
    setError(null);
    setFieldError(null);
    setSaved(null);
    try {
      const body = writeOf(what);
      if (revision === null) await api.channels.create(body);
      else await api.channels.replace(p.id!, body, revision);
      setConflict(null);
      setSaved({ id: body.id, text: revision === null ? "Channel created." : "Channel saved." });
      p.onSaved(body.id);
      // A created channel is loaded by the effect once the screen selects it.
      if (revision === null) return;
      // Load the stored state back: new revision, secrets blanked again.
      const d = await api.channels.get(body.id);
      if (editing.current !== body.id) return;
      setLoaded({ base: draftOf(d), revision: d.revision });
      setDraft(draftOf(d));
    } catch (e) {
      if (isConflict(e) && revision !== null) {
        try {
          const latest = await api.channels.get(p.id!);
          setConflict({ theirs: draftOf(latest), revision: latest.revision });
        } catch (e2) {
          setError(messageOf(e2));
        }
      } else {
        setError(messageOf(e));
        setFieldError(fieldErrorOf(e));
      }
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: Event) => {
    e.preventDefault();
    void save(draft, loaded?.revision ?? null);
  };

  const upstreamOptions = [
    { value: "", label: "(none: use the source URL)" },
    ...p.upstreams.map((u) => ({ value: u.id, label: `${u.id} — ${u.base_url}` })),
  ];
  const title = p.id === null ? "New channel" : `Edit ${p.id}`;

  return (
    <form
      class="card channel-form"
      onSubmit={submit}
      aria-labelledby="channel-form-title"
      noValidate
    >
      <h2 id="channel-form-title">{title}</h2>
      {loaded ? (
        <p class="muted">
          Revision {loaded.revision}
          {changedFields(loaded.base, draft).length > 0 ? " · unsaved changes" : ""}
        </p>
      ) : null}
      {conflict && loaded ? (
        <ConflictPanel
          base={loaded.base}
          mine={draft}
          conflict={conflict}
          onReload={() => {
            setLoaded({ base: conflict.theirs, revision: conflict.revision });
            setDraft(conflict.theirs);
            setConflict(null);
          }}
          onReapply={(merged) => {
            setLoaded({ base: conflict.theirs, revision: conflict.revision });
            setDraft(merged);
            void save(merged, conflict.revision);
          }}
        />
      ) : null}
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      {saved && saved.id === p.id ? (
        <p class="notice notice-ok" role="status">
          {saved.text}
        </p>
      ) : null}
      {busy || loading ? (
        <p class="notice notice-busy" role="status">
          <span class="spinner" aria-hidden="true" /> Working…
        </p>
      ) : null}
      <fieldset class="form-body" disabled={loading} aria-busy={loading}>
        <div class="grid-2">
          <TextField
            label="ID"
            value={draft.id}
            onInput={(v) => set("id", v)}
            readOnly={p.id !== null}
            error={err("id")}
            hint="1-64 characters: A-Z a-z 0-9 . _ -"
            required
          />
          <TextField
            label="Title"
            value={draft.title}
            onInput={(v) => set("title", v)}
            error={err("title")}
            required
          />
          <TextField
            label="Group"
            value={draft.group}
            onInput={(v) => set("group", v)}
            error={err("group")}
          />
          <SelectField
            label="Ingress"
            value={draft.ingress}
            onChange={(v) => set("ingress", v as ChannelDraft["ingress"])}
            options={["hls", "dash", "ts"]}
            error={err("ingress")}
          />
          <TextField
            label="Source URL"
            type="url"
            value={draft.source_url}
            onInput={(v) => set("source_url", v)}
            error={err("source_url")}
            hint="Or pick an upstream and a path below"
          />
          <SelectField
            label="Upstream"
            value={draft.upstream}
            onChange={(v) => set("upstream", v)}
            options={upstreamOptions}
            error={err("upstream")}
          />
          <TextField
            label="Upstream path"
            value={draft.path}
            onInput={(v) => set("path", v)}
            error={err("path")}
          />
          <TextField
            label="Logo URL"
            type="url"
            value={draft.logo_url}
            onInput={(v) => set("logo_url", v)}
            error={err("logo_url")}
          />
          <TextField
            label="Guide ID (epg_id)"
            value={draft.epg_id}
            onInput={(v) => set("epg_id", v)}
            error={err("epg_id")}
          />
          <TextField
            label="Guide name (epg_name)"
            value={draft.epg_name}
            onInput={(v) => set("epg_name", v)}
            error={err("epg_name")}
          />
          <TextField
            label="Guide source (epg_source)"
            value={draft.epg_source}
            onInput={(v) => set("epg_source", v)}
            error={err("epg_source")}
          />
          <TextField
            label="User-Agent"
            value={draft.user_agent}
            onInput={(v) => set("user_agent", v)}
            error={err("user_agent")}
            hint="Blank: the gateway's default"
          />
          <SelectField
            label="Engine"
            value={draft.engine}
            onChange={(v) => set("engine", v as ChannelDraft["engine"])}
            options={["auto", "native", "ffmpeg"]}
            error={err("engine")}
          />
          <TextField
            label="Preferred height"
            value={draft.prefer_height}
            onInput={(v) => set("prefer_height", v)}
            error={err("prefer_height")}
            hint="Blank: the highest"
          />
          <TextField
            label="Preferred audio languages"
            value={draft.preferred_audio_languages}
            onInput={(v) => set("preferred_audio_languages", v)}
            error={err("preferred_audio_languages")}
            hint="Comma-separated, e.g. en, de"
          />
          <TextField
            label="Max viewers"
            value={draft.max_viewers}
            onInput={(v) => set("max_viewers", v)}
            error={err("max_viewers")}
            hint="Blank: no limit"
          />
          <TextField
            label="Sort order"
            value={draft.sort_order}
            onInput={(v) => set("sort_order", v)}
            error={err("sort_order")}
          />
        </div>
        <div class="checks">
          <CheckboxField
            label="On demand"
            checked={draft.on_demand}
            onChange={(v) => set("on_demand", v)}
          />
          <CheckboxField
            label="Autostart"
            checked={draft.autostart}
            onChange={(v) => set("autostart", v)}
          />
          <CheckboxField
            label="Disabled"
            checked={draft.disabled}
            onChange={(v) => set("disabled", v)}
          />
        </div>
        <Fieldset legend="Egress binding">
          <SelectField
            label="Route"
            value={draft.egress_mode}
            onChange={(v) => set("egress_mode", v as ChannelDraft["egress_mode"])}
            options={[
              { value: "auto", label: "auto (egress rules decide)" },
              { value: "direct", label: "direct" },
              { value: "profile", label: "proxy profile" },
            ]}
            error={err("egress")}
          />
          {draft.egress_mode === "profile" ? (
            <TextField
              label="Proxy profile ID"
              value={draft.egress_profile_id}
              onInput={(v) => set("egress_profile_id", v)}
            />
          ) : null}
        </Fieldset>
        <HeadersEditor rows={draft.headers} onChange={(rows) => set("headers", rows)} />
        {err("headers") ? <p class="field-error">{err("headers")}</p> : null}
        {Object.keys(draft.keys).length > 0 ? (
          <p class="muted">
            ClearKey keys stored for {Object.keys(draft.keys).length} KID(s); they are kept on save.
          </p>
        ) : null}
      </fieldset>
      <div class="row-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || loading}>
          {p.id === null ? "Create channel" : "Save channel"}
        </button>
        <button type="button" class="btn" onClick={p.onCancel}>
          Close
        </button>
      </div>
    </form>
  );
}
