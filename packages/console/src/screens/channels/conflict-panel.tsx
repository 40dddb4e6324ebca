import { type ChannelDraft, changedFields, FIELD_LABELS, shown } from "./channel-draft.js";
import type { Conflict } from "./channel-form.js";

/**
 * Spec "Concurrency headers": a 409 means someone saved since this form loaded.
 * Shows the fields they changed beside the admin's edits; the admin reloads
 * (drops the edits) or re-applies the edits over the new version.
 */
export function ConflictPanel(p: {
  base: ChannelDraft;
  mine: ChannelDraft;
  conflict: Conflict;
  onReload: () => void;
  onReapply: (merged: ChannelDraft) => void;
}) {
  const theirs = changedFields(p.base, p.conflict.theirs);
  const mine = changedFields(p.base, p.mine);
  const merged = { ...p.conflict.theirs };
  for (const f of mine) (merged as Record<string, unknown>)[f] = p.mine[f];
  return (
    <section class="conflict" role="alert" aria-labelledby="conflict-title" data-testid="conflict">
      <h3 id="conflict-title">This channel changed since you opened it</h3>
      <p>
        Someone saved revision {p.conflict.revision}. Nothing was overwritten. Fields changed by
        them:
      </p>
      <div class="table-wrap">
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">When you opened it</th>
              <th scope="col">Now stored</th>
              <th scope="col">Your edit</th>
            </tr>
          </thead>
          <tbody>
            {theirs.map((f) => (
              <tr key={f}>
                <th scope="row">{FIELD_LABELS[f]}</th>
                <td>{shown(p.base, f)}</td>
                <td>{shown(p.conflict.theirs, f)}</td>
                <td>{mine.includes(f) ? shown(p.mine, f) : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {theirs.length === 0 ? <p>No field of the form differs (only the revision moved).</p> : null}
      <p>Your edits: {mine.length === 0 ? "none" : mine.map((f) => FIELD_LABELS[f]).join(", ")}.</p>
      <div class="row-actions">
        <button type="button" class="btn" onClick={p.onReload}>
          Reload (drop my edits)
        </button>
        <button type="button" class="btn btn-primary" onClick={() => p.onReapply(merged)}>
          Re-apply my edits and save
        </button>
      </div>
    </section>
  );
}
