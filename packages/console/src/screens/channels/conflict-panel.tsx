import { DataTable } from "../../components/data-table.js";
import { type ChannelDraft, changedFields, FIELD_LABELS, shown } from "./channel-draft.js";
import type { Conflict } from "./use-channel-draft.js";

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
      <DataTable
        columns={[
          { header: "Field", cell: (f) => FIELD_LABELS[f], rowHeader: true },
          { header: "When you opened it", cell: (f) => shown(p.base, f) },
          { header: "Now stored", cell: (f) => shown(p.conflict.theirs, f) },
          { header: "Your edit", cell: (f) => (mine.includes(f) ? shown(p.mine, f) : "—") },
        ]}
        rows={theirs}
        rowKey={(f) => f}
        empty="No field of the form differs (only the revision moved)."
      />
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
