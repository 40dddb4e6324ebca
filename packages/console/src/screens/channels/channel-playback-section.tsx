import {
  type DraftCheckSpec,
  DraftChecks,
  type DraftFieldSpec,
  DraftFields,
} from "./draft-fields.js";
import type { SectionProps } from "./use-channel-draft.js";

const FIELDS: readonly DraftFieldSpec[] = [
  { field: "user_agent", label: "User-Agent", hint: "Blank: the gateway's default" },
  { field: "engine", label: "Engine", options: ["auto", "native", "ffmpeg"] },
  { field: "prefer_height", label: "Preferred height", hint: "Blank: the highest" },
  {
    field: "preferred_audio_languages",
    label: "Preferred audio languages",
    hint: "Comma-separated, e.g. en, de",
  },
  { field: "max_viewers", label: "Max viewers", hint: "Blank: no limit" },
  { field: "sort_order", label: "Sort order" },
];

const CHECKS: readonly DraftCheckSpec[] = [
  { field: "on_demand", label: "On demand" },
  { field: "autostart", label: "Autostart" },
  { field: "disabled", label: "Disabled" },
];

/** How the gateway fetches and packages the channel: engine, renditions, limits, switches. */
export function ChannelPlaybackSection(section: SectionProps) {
  return (
    <>
      <DraftFields specs={FIELDS} section={section} />
      <DraftChecks specs={CHECKS} section={section} />
    </>
  );
}
