import type { ComponentChildren } from "preact";

/**
 * A small button in a table row or list item. Its accessible name adds what it
 * acts on (`Edit ch1`), since a column of "Edit" buttons is ambiguous to a
 * screen reader and to the tests that click them.
 *
 * @example
 * <RowButton label="Edit" of={s.id} onClick={() => setEditing(s)} />
 */
export function RowButton(p: {
  /** The visible verb, and the start of the accessible name. */
  label: string;
  /** What the button acts on: the accessible name is `${label} ${of}`. */
  of: string;
  onClick: () => void;
  danger?: boolean;
  disabled?: boolean;
  /** Visible text when it differs from `label` (a state-dependent verb keeps its own). */
  children?: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class={p.danger ? "btn btn-small btn-danger" : "btn btn-small"}
      disabled={p.disabled}
      aria-label={`${p.label} ${p.of}`}
      onClick={p.onClick}
    >
      {p.children ?? p.label}
    </button>
  );
}
