import { Fieldset, SelectField, TextField } from "../../components/field.js";
import type { SectionProps } from "./use-channel-draft.js";

/** The channel's egress binding (spec "Egress"): the rules decide, direct, or one proxy profile. */
export function ChannelEgressSection({ draft, set, err }: SectionProps) {
  return (
    <Fieldset legend="Egress binding">
      <SelectField
        label="Route"
        value={draft.egress_mode}
        onChange={(v) => set("egress_mode", v)}
        options={[
          { value: "auto", label: "auto (egress rules decide)" },
          { value: "direct", label: "direct" },
          { value: "profile", label: "proxy profile" },
        ]}
        error={err("egress")}
      />
      {draft.egress_mode === "profile" ? (
        <TextField
          label="Proxy profile ID"
          value={draft.egress_profile_id}
          onInput={(v) => set("egress_profile_id", v)}
        />
      ) : null}
    </Fieldset>
  );
}
