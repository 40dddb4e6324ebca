import type { Upstream } from "../../api/wire.js";
import { SelectField, TextField } from "../../components/field.js";
import type { SectionProps } from "./use-channel-draft.js";

/** Identity and where the channel comes from: a source URL, or an upstream and a path. */
export function ChannelSourceSection(p: SectionProps & { isNew: boolean; upstreams: Upstream[] }) {
  const { draft, set, err } = p;
  return (
    <div class="grid-2">
      <TextField
        label="ID"
        value={draft.id}
        onInput={(v) => set("id", v)}
        readOnly={!p.isNew}
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
        onChange={(v) => set("ingress", v)}
        options={["hls", "dash", "ts"] as const}
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
        options={[
          { value: "", label: "(none: use the source URL)" },
          ...p.upstreams.map((u) => ({ value: u.id, label: `${u.id} — ${u.base_url}` })),
        ]}
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
    </div>
  );
}
