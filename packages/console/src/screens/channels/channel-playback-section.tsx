import { CheckboxField, SelectField, TextField } from "../../components/field.js";
import type { SectionProps } from "./use-channel-draft.js";

/** How the gateway fetches and packages the channel: engine, renditions, limits, switches. */
export function ChannelPlaybackSection({ draft, set, err }: SectionProps) {
  return (
    <>
      <div class="grid-2">
        <TextField
          label="User-Agent"
          value={draft.user_agent}
          onInput={(v) => set("user_agent", v)}
          error={err("user_agent")}
          hint="Blank: the gateway's default"
        />
        <SelectField
          label="Engine"
          value={draft.engine}
          onChange={(v) => set("engine", v)}
          options={["auto", "native", "ffmpeg"] as const}
          error={err("engine")}
        />
        <TextField
          label="Preferred height"
          value={draft.prefer_height}
          onInput={(v) => set("prefer_height", v)}
          error={err("prefer_height")}
          hint="Blank: the highest"
        />
        <TextField
          label="Preferred audio languages"
          value={draft.preferred_audio_languages}
          onInput={(v) => set("preferred_audio_languages", v)}
          error={err("preferred_audio_languages")}
          hint="Comma-separated, e.g. en, de"
        />
        <TextField
          label="Max viewers"
          value={draft.max_viewers}
          onInput={(v) => set("max_viewers", v)}
          error={err("max_viewers")}
          hint="Blank: no limit"
        />
        <TextField
          label="Sort order"
          value={draft.sort_order}
          onInput={(v) => set("sort_order", v)}
          error={err("sort_order")}
        />
      </div>
      <div class="checks">
        <CheckboxField
          label="On demand"
          checked={draft.on_demand}
          onChange={(v) => set("on_demand", v)}
        />
        <CheckboxField
          label="Autostart"
          checked={draft.autostart}
          onChange={(v) => set("autostart", v)}
        />
        <CheckboxField
          label="Disabled"
          checked={draft.disabled}
          onChange={(v) => set("disabled", v)}
        />
      </div>
    </>
  );
}
