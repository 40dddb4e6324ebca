import type { Mpd } from "../../dash/manifest/mpd-model.js";
import {
  masterInputFromSelection,
  renderMasterPlaylist,
} from "../../dash/publisher/master-playlist.js";
import {
  type SelectionPreferences,
  selectRepresentations,
} from "../../dash/selection/representation-choice.js";
import { isMappable, mediaPlaylistName, type StreamMap } from "./ffmpeg-args.js";

/** What a session of the compatibility engine publishes, decided from the MPD. */
export interface FfmpegLayout {
  /** The Representations ffmpeg maps, each into its own media playlist. */
  readonly streams: StreamMap;
  /** The master playlist (`index.m3u8`), its URIs relative to the session folder. */
  readonly master: string;
}

/**
 * The channel's choice applied to ffmpeg (issue 12 item 10): the same selection as the
 * native engine (`selectRepresentations` on the first Period: `prefer_height` picks the
 * video, `preferred_audio_languages` the audio renditions, the first being DEFAULT), and
 * the same master playlist writer, so both engines publish alike: `CODECS`, `RESOLUTION`,
 * `FRAME-RATE` and `BANDWIDTH` from the MPD, each audio language an `EXT-X-MEDIA
 * TYPE=AUDIO` rendition of group `audio`. Undefined when nothing can be named for
 * ffmpeg's `-map` (no Period, no video or audio, an id ffmpeg's stream specifiers cannot
 * carry): ffmpeg then publishes its own default choice and master.
 * @example const layout = ffmpegLayout(mpd, { preferHeight: 720, preferredAudioLanguages: ["de"] });
 */
export function ffmpegLayout(mpd: Mpd, prefs: SelectionPreferences): FfmpegLayout | undefined {
  const period = mpd.periods[0];
  if (period === undefined) return undefined;
  const selection = selectRepresentations(period, prefs);
  // Without video only the first audio rendition is published (masterInputFromSelection).
  const audio = selection.video ? selection.audio : selection.audio.slice(0, 1);
  const video = selection.video?.representation.id;
  const streams: StreamMap = {
    ...(video === undefined ? {} : { video }),
    audio: audio.map((a) => a.representation.id),
  };
  if (!isMappable(streams)) return undefined;
  const first = video === undefined ? 0 : 1;
  const input = masterInputFromSelection(
    { ...selection, audio },
    { videoUri: mediaPlaylistName(0), audioUri: (i) => mediaPlaylistName(first + i) },
  );
  return { streams, master: renderMasterPlaylist(input) };
}
