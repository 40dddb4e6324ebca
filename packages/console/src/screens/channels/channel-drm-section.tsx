import type { SectionProps } from "./use-channel-draft.js";

/**
 * ClearKey (CENC) keys: the API returns them blanked and a write with blank
 * values keeps them, so the form only says how many are stored.
 */
export function ChannelDrmSection({ draft }: Pick<SectionProps, "draft">) {
  const kids = Object.keys(draft.keys).length;
  if (kids === 0) return null;
  return <p class="muted">ClearKey keys stored for {kids} KID(s); they are kept on save.</p>;
}
