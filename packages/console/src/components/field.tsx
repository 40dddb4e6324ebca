import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";

interface TextFieldProps {
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: "text" | "password" | "url" | "number" | "search" | "datetime-local";
  error?: string | undefined;
  hint?: string;
  required?: boolean;
  autoComplete?: string;
  name?: string;
  readOnly?: boolean;
  placeholder?: string;
}

/** A labelled input; an error or hint is tied to it with aria-describedby. */
export function TextField(p: TextFieldProps) {
  const id = useId();
  const describedBy = p.error ? `${id}-err` : p.hint ? `${id}-hint` : undefined;
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <input
        id={id}
        name={p.name}
        type={p.type ?? "text"}
        value={p.value}
        required={p.required}
        readOnly={p.readOnly}
        placeholder={p.placeholder}
        autoComplete={p.autoComplete}
        aria-invalid={p.error ? "true" : undefined}
        aria-describedby={describedBy}
        onInput={(e) => p.onInput((e.currentTarget as HTMLInputElement).value)}
      />
      {p.error ? (
        <span id={`${id}-err`} class="field-error">
          {p.error}
        </span>
      ) : p.hint ? (
        <span id={`${id}-hint`} class="field-hint">
          {p.hint}
        </span>
      ) : null}
    </div>
  );
}

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
        aria-describedby={p.hint ? `${id}-hint` : undefined}
        onChange={(e) => p.onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>{p.label}</label>
      {p.hint ? (
        <span id={`${id}-hint`} class="field-hint">
          {p.hint}
        </span>
      ) : null}
    </div>
  );
}

/** A labelled select; `V` narrows the values to a union the API accepts. */
export function SelectField<V extends string = string>(p: {
  label: string;
  value: V;
  onChange: (value: V) => void;
  options: readonly (V | { value: V; label: string })[];
  error?: string | undefined;
  hint?: string;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <select
        id={id}
        value={p.value}
        aria-invalid={p.error ? "true" : undefined}
        aria-describedby={p.error ? `${id}-err` : p.hint ? `${id}-hint` : undefined}
        onChange={(e) => p.onChange((e.currentTarget as HTMLSelectElement).value as V)}
      >
        {p.options.map((o) =>
          typeof o === "string" ? (
            <option key={o} value={o}>
              {o}
            </option>
          ) : (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ),
        )}
      </select>
      {p.error ? (
        <span id={`${id}-err`} class="field-error">
          {p.error}
        </span>
      ) : p.hint ? (
        <span id={`${id}-hint`} class="field-hint">
          {p.hint}
        </span>
      ) : null}
    </div>
  );
}

export function TextAreaField(p: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  rows?: number;
  hint?: string;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <textarea
        id={id}
        rows={p.rows ?? 6}
        value={p.value}
        aria-describedby={p.hint ? `${id}-hint` : undefined}
        onInput={(e) => p.onInput((e.currentTarget as HTMLTextAreaElement).value)}
      />
      {p.hint ? (
        <span id={`${id}-hint`} class="field-hint">
          {p.hint}
        </span>
      ) : null}
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
