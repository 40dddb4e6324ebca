import type { ComponentChildren } from "preact";
import { Card } from "./card.js";
import { ActionNotice } from "./notice.js";
import { useAction } from "./use-action.js";

/**
 * The card of a create-or-edit form: title, fields, the save's outcome, Save and
 * Cancel. The save runs through its own action; on success `onDone` gets `saved`
 * for the screen's notice (the screen closes the form and reloads).
 *
 * @example
 * <EditForm titleId="m3u-source-form-title" title="New M3U source" submitLabel="Save source"
 *   save={() => api.m3uSources.create(body)} saved="M3U source s1 saved."
 *   onDone={close} onCancel={close}>…fields…</EditForm>
 */
export function EditForm(p: {
  titleId: string;
  title: ComponentChildren;
  submitLabel: string;
  save: () => Promise<unknown>;
  saved: string;
  onDone: (message: string) => void;
  onCancel: () => void;
  children: ComponentChildren;
}) {
  const action = useAction();
  return (
    <Card
      titleId={p.titleId}
      title={p.title}
      onSubmit={async () => {
        const ok = await action.run(p.save);
        if (ok !== undefined) p.onDone(p.saved);
      }}
    >
      {p.children}
      <ActionNotice action={action} />
      <div class="row-actions">
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          {p.submitLabel}
        </button>
        <button type="button" class="btn" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </Card>
  );
}
