import { Fieldset } from "../../components/field.js";
import { DraftField } from "./draft-fields.js";
import type { SectionProps } from "./use-channel-draft.js";

/** The channel's egress binding (spec "Egress"): the rules decide, direct, or one proxy profile. */
export function ChannelEgressSection(section: SectionProps) {
  return (
    <Fieldset legend="Egress binding">
      <DraftField
        section={section}
        spec={{
          field: "egress_mode",
          label: "Route",
          options: [
            { value: "auto", label: "auto (egress rules decide)" },
            { value: "direct", label: "direct" },
            { value: "profile", label: "proxy profile" },
          ],
          errorOf: "egress",
        }}
      />
      {section.draft.egress_mode === "profile" ? (
        <DraftField
          section={section}
          spec={{ field: "egress_profile_id", label: "Proxy profile ID", errorOf: null }}
        />
      ) : null}
    </Fieldset>
  );
}
