import { channelPlaylistPieces, playlistChannels } from "@svc/playback/routes";
import type { ChannelStore } from "../channels/channel-store.js";
import type { PlaybackKeyStore } from "../playback-keys/key-store.js";
import { createPlaybackKey } from "../playback-keys/manage.js";

/** Spec "Import and export": the name of the playback key every export creates. */
export const EXPORT_KEY_NAME = "M3U export";
export const EXPORT_FILE_NAME = "svc-playlist.m3u";

/**
 * `POST /v1/admin/exports/m3u`: the enabled channels in `sort_order` as an extended M3U whose
 * play URLs carry a new playback key named `M3U export` (`/p/{key}/play/{id}/index.m3u8`),
 * never a session or an API token. `tvg-id` is the gateway's channel id (the id
 * `/v1/epg.xml` uses), `tvg-logo` the channel's `logo_url` or the gateway's `/v1/logo/{id}`,
 * and the header names the guide when one is active. The key is created first; the playlist
 * is then rendered piece by piece as the answer is read (`piecewiseBody`).
 */
export async function exportPlaylist(
  deps: { channels: ChannelStore; keys: PlaybackKeyStore; guideActive: () => boolean },
  base: string,
): Promise<Generator<string, void, undefined>> {
  const key = await createPlaybackKey(deps.keys, deps.channels, base, {
    name: EXPORT_KEY_NAME,
    note: `created by an M3U export at ${new Date().toISOString()}`,
    channelIds: [],
    expiresInSec: 0,
  });
  const prefix = `${base}/p/${key.token}/play/`;
  return channelPlaylistPieces(
    playlistChannels(deps.channels.list(), null),
    (ch) => `${prefix}${encodeURIComponent(ch.id)}/index.m3u8`,
    {
      guideUrl: deps.guideActive() ? `${base}/v1/epg.xml.gz` : undefined,
      logoUrl: (ch) => ch.logo_url || `${base}/v1/logo/${encodeURIComponent(ch.id)}`,
      tvgId: (ch) => ch.id,
    },
  );
}
