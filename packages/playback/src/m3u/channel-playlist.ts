import type { Channel } from "@svc/core/catalog";

/** Attribute values of `#EXTINF` may not carry quotes or line breaks. */
function attr(value: string): string {
  return value.replace(/["\r\n]/g, " ");
}

/** Titles follow the last comma of `#EXTINF`; line breaks would split the entry. */
function title(value: string): string {
  return value.replace(/[\r\n]+/g, " ");
}

/**
 * Renders the channel list as an extended M3U playlist, one `#EXTINF` entry per
 * channel with the IPTV attributes players read (`tvg-id`, `tvg-name`,
 * `tvg-logo`, `group-title`), followed by the channel's play URL.
 */
export function renderChannelPlaylist(
  channels: readonly Channel[],
  playUrl: (channel: Channel) => string,
  options: {
    guideUrl?: string | undefined;
    logoUrl?: (channel: Channel) => string;
    /** `tvg-id`; default the channel's id with a guide URL (the guide's ids), else its `epg_id`. */
    tvgId?: (channel: Channel) => string;
  } = {},
): string {
  const lines = [
    options.guideUrl === undefined ? "#EXTM3U" : `#EXTM3U x-tvg-url="${attr(options.guideUrl)}"`,
  ];
  for (const ch of channels) {
    const logo = options.logoUrl?.(ch) ?? ch.logo_url;
    // With the gateway's guide (x-tvg-url) the guide's channel ids are the
    // gateway's channel ids (spec `/v1/epg.xml`), so tvg-id must be too.
    const attrs = [
      `tvg-id="${attr(options.tvgId?.(ch) ?? (options.guideUrl === undefined ? ch.epg_id : ch.id))}"`,
      `tvg-name="${attr(ch.epg_name || ch.title)}"`,
      logo === "" ? undefined : `tvg-logo="${attr(logo)}"`,
      ch.group === "" ? undefined : `group-title="${attr(ch.group)}"`,
    ].filter((a) => a !== undefined);
    lines.push(`#EXTINF:-1 ${attrs.join(" ")},${title(ch.title)}`, playUrl(ch));
  }
  return `${lines.join("\n")}\n`;
}
