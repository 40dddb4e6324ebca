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
