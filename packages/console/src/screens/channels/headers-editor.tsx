import type { HeaderRow } from "./channel-draft.js";

/**
 * Request headers sent upstream. Values the API blanked (spec "Channel": sensitive
 * headers) show as "set": left blank they keep the stored value, typed they replace it.
 * `legend` and `label` ("Header", "Fallback 2 header") tell several editors on one form apart.
 */
export function HeadersEditor(p: {
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  legend?: string;
  label?: string;
}) {
  const label = p.label ?? "Header";
  const lower = label.toLowerCase();
  const update = (i: number, patch: Partial<HeaderRow>) =>
    p.onChange(p.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset class="fieldset">
      <legend>{p.legend ?? "Upstream request headers"}</legend>
      {p.rows.length === 0 ? <p class="muted">No headers.</p> : null}
      {p.rows.map((r, i) => (
        <div class="header-row" key={i}>
          <label>
            <span class="label-text">
              {label} {i + 1} name
            </span>
            <input
              value={r.name}
              onInput={(e) => update(i, { name: (e.currentTarget as HTMLInputElement).value })}
            />
          </label>
          <label>
            <span class="label-text">
              {label} {i + 1} value
              {r.secretSet ? (
                <span class="badge badge-set" data-testid="secret-set">
                  set
                </span>
              ) : null}
            </span>
            <input
              value={r.value}
              placeholder={r.secretSet ? "stored — leave blank to keep" : ""}
              onInput={(e) => update(i, { value: (e.currentTarget as HTMLInputElement).value })}
            />
          </label>
          <button
            type="button"
            class="btn btn-small"
            aria-label={`Remove ${lower} ${r.name || i + 1}`}
            onClick={() => p.onChange(p.rows.filter((_, j) => j !== i))}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        class="btn btn-small"
        onClick={() => p.onChange([...p.rows, { name: "", value: "", secretSet: false }])}
      >
        Add {lower}
      </button>
    </fieldset>
  );
}
