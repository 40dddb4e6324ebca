import { RowButton } from "./row-button.js";
import type { RowEditor } from "./use-row-editor.js";

/** A row's Edit and Delete buttons, opening its form or its delete confirmation. */
export function EditDeleteButtons<T>(p: { row: T; of: string; editor: RowEditor<T> }) {
  return (
    <>
      <RowButton label="Edit" of={p.of} onClick={() => p.editor.edit(p.row)} />
      <RowButton label="Delete" of={p.of} danger onClick={() => p.editor.askDelete(p.row)} />
    </>
  );
}
