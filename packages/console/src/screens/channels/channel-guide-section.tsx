import { type DraftFieldSpec, DraftFields } from "./draft-fields.js";
import type { SectionProps } from "./use-channel-draft.js";

const FIELDS: readonly DraftFieldSpec[] = [
  { field: "epg_id", label: "Guide ID (epg_id)" },
  { field: "epg_name", label: "Guide name (epg_name)" },
  { field: "epg_source", label: "Guide source (epg_source)" },
  {
    field: "guide_number",
    label: "Channel number (guide_number)",
    hint: "e.g. 5 or 5.1, shown by Plex, Jellyfin and TV apps; blank: its position",
  },
];

/** The guide entry the channel is matched to (spec "Guide"). */
export function ChannelGuideSection(section: SectionProps) {
  return <DraftFields specs={FIELDS} section={section} />;
}
