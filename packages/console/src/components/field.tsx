import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";

interface FieldText {
  /** The API's message for this field; shown instead of the hint. */
  error?: string | undefined;
  hint?: string | undefined;
}

/** The `aria-describedby` of a control: its error, else its hint. */
function describedBy(id: string, f: FieldText): string | undefined {
  return f.error ? `${id}-err` : f.hint ? `${id}-hint` : undefined;
}

/** The line under a control: the error (`.field-error`) or the hint (`.field-hint`). */
function FieldNote({ id, error, hint }: FieldText & { id: string }) {
  if (error)
    return (
      <span id={`${id}-err`} class="field-error">
        {error}
      </span>
    );
  if (hint)
    return (
      <span id={`${id}-hint`} class="field-hint">
        {hint}
      </span>
    );
  return null;
}

/**
 * Label, control and error-or-hint, tied together by ids: every field of the
 * console is one of these. `control` gets the id and the aria attributes.
 */
export function FormField(
  p: FieldText & {
    label: string;
    control: (aria: {
      id: string;
      "aria-invalid": "true" | undefined;
      "aria-describedby": string | undefined;
    }) => ComponentChildren;
  },
) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      {p.control({
        id,
        "aria-invalid": p.error ? "true" : undefined,
        "aria-describedby": describedBy(id, p),
      })}
      <FieldNote id={id} error={p.error} hint={p.hint} />
    </div>
  );
}

/**
 * A labelled text input, or a textarea when `rows` is given; an error or hint is
 * tied to it with aria-describedby.
 */
export function TextField(
  p: FieldText & {
    label: string;
    value: string;
    onInput: (value: string) => void;
    type?: "text" | "password" | "url" | "number" | "search" | "datetime-local";
    /** A multi-line textarea of this many rows. */
    rows?: number;
    required?: boolean;
    autoComplete?: string;
    name?: string;
    readOnly?: boolean;
    placeholder?: string;
  },
) {
  const onInput = (e: Event) =>
    p.onInput((e.currentTarget as HTMLInputElement | HTMLTextAreaElement).value);
  return (
    <FormField
      label={p.label}
      error={p.error}
      hint={p.hint}
      control={(aria) =>
        p.rows === undefined ? (
          <input
            {...aria}
            name={p.name}
            type={p.type ?? "text"}
            value={p.value}
            required={p.required}
            readOnly={p.readOnly}
            placeholder={p.placeholder}
            autoComplete={p.autoComplete}
            onInput={onInput}
          />
        ) : (
          <textarea {...aria} rows={p.rows} value={p.value} onInput={onInput} />
        )
      }
    />
  );
}

/** A labelled select; `V` narrows the values to a union the API accepts. */
export function SelectField<V extends string = string>(
  p: FieldText & {
    label: string;
    value: V;
    onChange: (value: V) => void;
    options: readonly (V | { value: V; label: string })[];
  },
) {
  return (
    <FormField
      label={p.label}
      error={p.error}
      hint={p.hint}
      control={(aria) => (
        <select
          {...aria}
          value={p.value}
          onChange={(e) => p.onChange((e.currentTarget as HTMLSelectElement).value as V)}
        >
          {p.options.map((o) => {
            const { value, label } = typeof o === "string" ? { value: o, label: o } : o;
            return (
              <option key={value} value={value}>
                {label}
              </option>
            );
          })}
        </select>
      )}
    />
  );
}

/** A checkbox with its label after it; a hint is tied to it with aria-describedby. */
export function CheckboxField(p: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: string;
}) {
  const id = useId();
  return (
    <div class="field field-check">
      <input
        id={id}
        type="checkbox"
        checked={p.checked}
        aria-describedby={describedBy(id, p)}
        onChange={(e) => p.onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>{p.label}</label>
      <FieldNote id={id} hint={p.hint} />
    </div>
  );
}

export function Fieldset({ legend, children }: { legend: string; children: ComponentChildren }) {
  return (
    <fieldset class="fieldset">
      <legend>{legend}</legend>
      {children}
    </fieldset>
  );
}
