#!/bin/sh
# Makes the built-in "channel unavailable" slate (extensions "Fallback sources and the slate",
# docs/failover.md): a 2 s still picture with silent AAC, H.264 at 480p, 720p and 1080p (16:9),
# as MPEG-TS (`slate-{h}.mp2t`: a `.ts` name would be read as TypeScript by the tools) and fMP4 (`slate-{h}-init.mp4` + `slate-{h}.m4s`). Run once; the
# output is committed under packages/playback/assets/slate/. Needs ffmpeg with libx264,
# drawtext and a DejaVu font. Small on purpose: 2 s, one GOP, a low bitrate.
set -eu
out="$(dirname "$0")/../packages/playback/assets/slate"
font="${SLATE_FONT:-/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf}"
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for size in 854x480 1280x720 1920x1080; do
  h="${size#*x}"
  fs=$((h / 12))
  # One source, two muxes: the TS and the fMP4 slate hold the same frames.
  ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "color=c=0x202830:s=${size}:r=25:d=2" \
    -f lavfi -i "anullsrc=channel_layout=stereo:sample_rate=48000" \
    -vf "drawtext=fontfile=${font}:text='Channel unavailable':fontcolor=white:fontsize=${fs}:x=(w-text_w)/2:y=(h-text_h)/2" \
    -t 2 -c:v libx264 -preset veryslow -tune stillimage -profile:v main -pix_fmt yuv420p \
    -g 50 -keyint_min 50 -sc_threshold 0 -b:v 40k -maxrate 80k -bufsize 160k \
    -c:a aac -b:a 32k -ac 2 -ar 48000 -map 0:v -map 1:a -shortest \
    -metadata title="channel unavailable" "$tmp/slate-${h}.mkv"
  ffmpeg -hide_banner -loglevel error -y -i "$tmp/slate-${h}.mkv" -map 0 -c copy \
    -f mpegts -mpegts_flags +resend_headers -muxdelay 0 -muxpreload 0 "$out/slate-${h}.mp2t"
  ffmpeg -hide_banner -loglevel error -y -i "$tmp/slate-${h}.mkv" -map 0 -c copy \
    -f hls -hls_segment_type fmp4 -hls_time 2 -hls_list_size 0 \
    -hls_fmp4_init_filename "slate-${h}-init.mp4" \
    -hls_segment_filename "$tmp/seg-${h}-%d.m4s" "$tmp/slate-${h}.m3u8"
  mv "$tmp/slate-${h}-init.mp4" "$out/slate-${h}-init.mp4"
  mv "$tmp/seg-${h}-0.m4s" "$out/slate-${h}.m4s"
done
ls -l "$out"
