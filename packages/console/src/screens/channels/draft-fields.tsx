import { CheckboxField, SelectField, TextField } from "../../components/field.js";
import type { ChannelDraft } from "./channel-draft.js";
import type { SectionProps } from "./use-channel-draft.js";

type KeysOf<V> = {
  [K in keyof ChannelDraft]: ChannelDraft[K] extends V ? K : never;
}[keyof ChannelDraft];

/**
 * One field of the channel form, declared as data: the draft field it edits, its label
 * and hint; `options` makes it a select. The API's message for `field` (or for
 * `errorOf`, the name the API uses; `null`: none) shows under it.
 */
export interface DraftFieldSpec {
  field: KeysOf<string>;
  label: string;
  hint?: string;
  type?: "text" | "url";
  required?: boolean;
  readOnly?: boolean;
  options?: readonly (string | { value: string; label: string })[];
  errorOf?: string | null;
}

/** A checkbox of the channel form: a boolean draft field and its label. */
export interface DraftCheckSpec {
  field: KeysOf<boolean>;
  label: string;
}

/** One text field or select bound to the draft (see {@link DraftFieldSpec}). */
export function DraftField({ spec, section }: { spec: DraftFieldSpec; section: SectionProps }) {
  const { draft, err } = section;
  // `field` names a string field; the select's options are that field's values.
  const set = (v: string) => section.set(spec.field, v as never);
  const error = spec.errorOf === null ? undefined : err(spec.errorOf ?? spec.field);
  return spec.options ? (
    <SelectField
      label={spec.label}
      value={draft[spec.field]}
      onChange={set}
      options={spec.options}
      error={error}
      hint={spec.hint}
    />
  ) : (
    <TextField
      label={spec.label}
      type={spec.type}
      value={draft[spec.field]}
      onInput={set}
      readOnly={spec.readOnly}
      required={spec.required}
      error={error}
      hint={spec.hint}
    />
  );
}

/** The fields of one section, two columns wide. */
export function DraftFields(p: { specs: readonly DraftFieldSpec[]; section: SectionProps }) {
  return (
    <div class="grid-2">
      {p.specs.map((spec) => (
        <DraftField key={spec.field} spec={spec} section={p.section} />
      ))}
    </div>
  );
}

/** The switches of one section, in a row. */
export function DraftChecks(p: { specs: readonly DraftCheckSpec[]; section: SectionProps }) {
  const { draft, set } = p.section;
  return (
    <div class="checks">
      {p.specs.map((spec) => (
        <CheckboxField
          key={spec.field}
          label={spec.label}
          checked={draft[spec.field]}
          onChange={(v) => set(spec.field, v)}
        />
      ))}
    </div>
  );
}
