import type { Upstream } from "../../api/wire.js";
import { choicesOf } from "../../components/choices.js";
import { DraftFields } from "./draft-fields.js";
import type { SectionProps } from "./use-channel-draft.js";

/** Identity and where the channel comes from: a source URL, or an upstream and a path. */
export function ChannelSourceSection(p: SectionProps & { isNew: boolean; upstreams: Upstream[] }) {
  const { isNew, upstreams, ...section } = p;
  return (
    <DraftFields
      section={section}
      specs={[
        {
          field: "id",
          label: "ID",
          readOnly: !isNew,
          hint: "1-64 characters: A-Z a-z 0-9 . _ -",
          required: true,
        },
        { field: "title", label: "Title", required: true },
        { field: "group", label: "Group" },
        { field: "ingress", label: "Ingress", options: ["hls", "dash", "ts"] },
        {
          field: "source_url",
          label: "Source URL",
          type: "url",
          hint: "Or pick an upstream and a path below",
        },
        {
          field: "upstream",
          label: "Upstream",
          options: choicesOf(
            [{ value: "", label: "(none: use the source URL)" }],
            upstreams,
            (u) => ({
              value: u.id,
              label: `${u.id} — ${u.base_url}`,
            }),
          ),
        },
        { field: "path", label: "Upstream path" },
        { field: "logo_url", label: "Logo URL", type: "url" },
      ]}
    />
  );
}
