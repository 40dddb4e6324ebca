import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

/** A controlled modal confirmation (native `<dialog>`: focus trapped, Escape cancels). */
export function ConfirmDialog(p: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d === null) return;
    if (p.open && !d.open) d.showModal();
    if (!p.open && d.open) d.close();
  }, [p.open]);
  return (
    <dialog ref={ref} class="dialog" aria-label={p.title} onClose={p.onClose}>
      <h2 class="dialog-title">{p.title}</h2>
      <div>{p.children}</div>
      <div class="row-actions">
        <button type="button" class="btn" onClick={() => ref.current?.close()}>
          Cancel
        </button>
        <button
          type="button"
          class="btn btn-danger"
          onClick={() => {
            p.onConfirm();
            ref.current?.close();
          }}
        >
          {p.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/**
 * A {@link ConfirmDialog} about one row (the channel to delete): open while
 * `target` is set, and confirmed with that row.
 *
 * @example
 * <ConfirmFor target={toDelete} title="Delete channel" confirmLabel="Delete"
 *   onClose={() => setToDelete(null)} onConfirm={(c) => remove(c)}>
 *   {(c) => <p>Delete {c.title}?</p>}
 * </ConfirmFor>
 */
export function ConfirmFor<T>(p: {
  target: T | null;
  title: string;
  confirmLabel: string;
  onConfirm: (target: T) => void;
  onClose: () => void;
  children: (target: T) => ComponentChildren;
}) {
  const target = p.target;
  return (
    <ConfirmDialog
      open={target !== null}
      title={p.title}
      confirmLabel={p.confirmLabel}
      onClose={p.onClose}
      onConfirm={() => {
        if (target !== null) p.onConfirm(target);
      }}
    >
      {target === null ? null : p.children(target)}
    </ConfirmDialog>
  );
}

/** The confirmation before deleting one row: `Delete <noun>`, confirmed with "Delete". */
export function ConfirmDelete<T>(p: {
  noun: string;
  target: T | null;
  onDelete: (target: T) => void;
  onClose: () => void;
  children: (target: T) => ComponentChildren;
}) {
  return (
    <ConfirmFor
      target={p.target}
      title={`Delete ${p.noun}`}
      confirmLabel="Delete"
      onConfirm={p.onDelete}
      onClose={p.onClose}
    >
      {p.children}
    </ConfirmFor>
  );
}
