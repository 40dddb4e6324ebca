import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { Action } from "./use-action.js";

export interface RowEditor<T> {
  editing: T | "new" | null;
  edit: (row: T | "new") => void;
  toDelete: T | null;
  askDelete: (row: T) => void;
  closeDelete: () => void;
  formProps: { onDone: (message: string) => Promise<void>; onCancel: () => void };
  /** The open form, rendered with its row (`null`: a new one); nothing while none is open. */
  form: (render: (row: T | null) => ComponentChildren) => ComponentChildren;
}

/**
 * The editing state of a list screen: the row open in its form (`"new"` for a new
 * one) and the row awaiting delete confirmation. `formProps` are the form's
 * `onDone`/`onCancel`: both close it, and a save reloads the list with its message.
 *
 * @example
 * const rows = useRowEditor<M3uSource>(action, reload);
 * {rows.form((source) => <M3uSourceForm source={source} {...rows.formProps} />)}
 */
export function useRowEditor<T>(action: Action, reload: () => Promise<void>): RowEditor<T> {
  const [editing, setEditing] = useState<T | "new" | null>(null);
  const [toDelete, setToDelete] = useState<T | null>(null);
  const close = () => setEditing(null);
  return {
    editing,
    edit: (row: T | "new") => setEditing(row),
    toDelete,
    askDelete: (row: T) => setToDelete(row),
    closeDelete: () => setToDelete(null),
    form: (render) => (editing === null ? null : render(editing === "new" ? null : editing)),
    formProps: {
      onDone: async (message: string) => {
        close();
        await action.run(reload, message);
      },
      onCancel: close,
    },
  };
}
