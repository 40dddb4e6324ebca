import type { Channel } from "@svc/core/catalog";

// Channel objects for unit and storage tests: every field valid, set once here, so a test
// names only the fields it is about (operator contract "Channel object").

/** A valid HLS channel on a loopback source; `over` sets any field. */
export function channel(id: string, over: Partial<Channel> = {}): Channel {
  return {
    id,
    title: id,
    group: "",
    logo_url: "",
    epg_id: "",
    epg_name: "",
    epg_source: "",
    ingress: "hls",
    source_url: `http://127.0.0.1:9/${id}.m3u8`,
    upstream: "",
    path: "",
    headers: {},
    user_agent: "",
    on_demand: true,
    autostart: false,
    disabled: false,
    prefer_height: null,
    preferred_audio_languages: [],
    sort_order: 0,
    guide_number: "",
    max_viewers: null,
    engine: "auto",
    keys: {},
    fallback_sources: [],
    revision: 1,
    ...over,
  };
}

/** What the admin API stores beside a channel (its `StoredChannel` fields beyond `Channel`). */
export interface StoredFields {
  readonly egress_mode: "auto" | "direct" | "profile";
  readonly egress_profile_id: string | null;
  readonly updated_at: number;
}

/** {@link channel} with the admin API's stored fields (egress `auto`, a fixed update time). */
export function storedChannel(
  id: string,
  over: Partial<Channel & StoredFields> = {},
): Channel & StoredFields {
  return {
    ...channel(id),
    egress_mode: "auto",
    egress_profile_id: null,
    updated_at: 1_767_312_245_123,
    ...over,
  };
}
