import type { Upstream } from "../../api/wire.js";
import { SelectField, TextField } from "../../components/field.js";
import { EMPTY_FALLBACK, type FallbackDraft, MAX_FALLBACK_SOURCES } from "./channel-draft.js";
import { HeadersEditor } from "./headers-editor.js";
import type { SectionProps } from "./use-channel-draft.js";

/**
 * The channel's `fallback_sources` (extensions "Fallback sources and the slate"): an ordered
 * list, each a source URL or an upstream and a path, with its own headers and User-Agent.
 * Sensitive header values are blank as the API returns them and kept when left blank, as
 * the primary's; an API error naming `fallback_sources[i].<field>` shows under that field.
 */
export function FallbackSourcesEditor(p: SectionProps & { upstreams: Upstream[] }) {
  const rows = p.draft.fallback_sources;
  const put = (next: FallbackDraft[]) => p.set("fallback_sources", next);
  const update = (i: number, patch: Partial<FallbackDraft>) =>
    put(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const move = (i: number, to: number) => {
    const next = [...rows];
    const [moved] = next.splice(i, 1);
    next.splice(to, 0, moved!);
    put(next);
  };
  const upstreamOptions = [
    { value: "", label: "(none: use the source URL)" },
    ...p.upstreams.map((u) => ({ value: u.id, label: `${u.id} — ${u.base_url}` })),
  ];
  return (
    <fieldset class="fieldset" data-testid="fallback-sources">
      <legend>Fallback sources</legend>
      <p class="muted">
        Tried in order after the primary source when it fails, with the channel's ingress (at most{" "}
        {MAX_FALLBACK_SOURCES}).
      </p>
      {rows.length === 0 ? <p class="muted">No fallback source.</p> : null}
      {rows.map((f, i) => {
        const n = i + 1;
        const at = (field: string) => p.errAt(`fallback_sources[${i}].${field}`);
        return (
          <fieldset class="fieldset" key={i} data-testid={`fallback-${n}`}>
            <legend>Fallback {n}</legend>
            <div class="grid-2">
              <TextField
                label={`Fallback ${n} source URL`}
                type="url"
                value={f.source_url}
                onInput={(v) => update(i, { source_url: v })}
                error={at("source_url")}
              />
              <SelectField
                label={`Fallback ${n} upstream`}
                value={f.upstream}
                onChange={(v) => update(i, { upstream: v })}
                options={upstreamOptions}
                error={at("upstream")}
              />
              <TextField
                label={`Fallback ${n} upstream path`}
                value={f.path}
                onInput={(v) => update(i, { path: v })}
                error={at("path")}
              />
              <TextField
                label={`Fallback ${n} User-Agent`}
                value={f.user_agent}
                onInput={(v) => update(i, { user_agent: v })}
                error={at("user_agent")}
                hint="Blank: the gateway's default"
              />
            </div>
            <HeadersEditor
              legend={`Fallback ${n} request headers`}
              label={`Fallback ${n} header`}
              rows={f.headers}
              onChange={(headers) => update(i, { headers })}
            />
            {at("headers") ? <p class="field-error">{at("headers")}</p> : null}
            <div class="row-actions">
              <button
                type="button"
                class="btn btn-small"
                disabled={i === 0}
                onClick={() => move(i, i - 1)}
              >
                Move fallback {n} up
              </button>
              <button
                type="button"
                class="btn btn-small"
                disabled={i === rows.length - 1}
                onClick={() => move(i, i + 1)}
              >
                Move fallback {n} down
              </button>
              <button
                type="button"
                class="btn btn-small"
                onClick={() => put(rows.filter((_, j) => j !== i))}
              >
                Remove fallback {n}
              </button>
            </div>
          </fieldset>
        );
      })}
      {p.errAt("fallback_sources") ? (
        <p class="field-error">{p.errAt("fallback_sources")}</p>
      ) : null}
      <button
        type="button"
        class="btn btn-small"
        disabled={rows.length >= MAX_FALLBACK_SOURCES}
        onClick={() => put([...rows, { ...EMPTY_FALLBACK }])}
      >
        Add fallback source
      </button>
    </fieldset>
  );
}
