import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Channel } from "@svc/core/catalog";
import { channel as testChannel } from "@svc/test-kits/channel";
import { channelPlaylistPieces, playlistChannels } from "./channel-playlist.js";

/** The playlist as it was rendered whole before it streamed: the reference for the bytes. */
function referencePlaylist(
  channels: readonly Channel[],
  playUrl: (channel: Channel) => string,
  options: {
    guideUrl?: string | undefined;
    logoUrl?: (channel: Channel) => string;
    tvgId?: (channel: Channel) => string;
  } = {},
): string {
  const attr = (value: string) => value.replace(/["\r\n]/g, " ");
  const lines = [
    options.guideUrl === undefined ? "#EXTM3U" : `#EXTM3U x-tvg-url="${attr(options.guideUrl)}"`,
  ];
  for (const ch of channels) {
    const logo = options.logoUrl?.(ch) ?? ch.logo_url;
    const attrs = [
      `tvg-id="${attr(options.tvgId?.(ch) ?? (options.guideUrl === undefined ? ch.epg_id : ch.id))}"`,
      `tvg-name="${attr(ch.epg_name || ch.title)}"`,
      ch.guide_number === "" ? undefined : `tvg-chno="${ch.guide_number}"`,
      logo === "" ? undefined : `tvg-logo="${attr(logo)}"`,
      ch.group === "" ? undefined : `group-title="${attr(ch.group)}"`,
    ].filter((a) => a !== undefined);
    lines.push(`#EXTINF:-1 ${attrs.join(" ")},${ch.title.replace(/[\r\n]+/g, " ")}`, playUrl(ch));
  }
  return `${lines.join("\n")}\n`;
}

function channel(i: number): Channel {
  return testChannel(`ch ${i}/é`, {
    title: i % 7 === 0 ? `Kanal "${i}",\r\nÜbertragung 📺` : `Channel ${i}`,
    group: i % 3 === 0 ? "" : `Group "${i % 50}"`,
    logo_url: i % 5 === 0 ? "" : `http://127.0.0.1:9/logo/${i}.png`,
    epg_id: `ch${i}.test`,
    epg_name: i % 2 === 0 ? "" : `Name\n${i}`,
    source_url: `http://127.0.0.1:9/${i}.m3u8`,
    on_demand: false,
    disabled: i % 4 === 0,
    sort_order: i,
    guide_number: i % 6 === 1 ? `${i}.${i % 10}` : "",
  });
}

describe("channelPlaylistPieces", () => {
  const url = (ch: Channel) =>
    `http://127.0.0.1:8080/v1/play/${encodeURIComponent(ch.id)}/index.m3u8?token=t`;
  const forms: [string, Parameters<typeof referencePlaylist>[2]][] = [
    ["no guide", {}],
    ["guide", { guideUrl: 'http://127.0.0.1:8080/v1/epg.xml.gz?"x"' }],
    [
      "export form (logo and tvg-id given)",
      {
        logoUrl: (ch) => ch.logo_url || `http://127.0.0.1:8080/v1/logo/${ch.id}`,
        tvgId: (ch) => ch.id,
      },
    ],
  ];
  for (const size of [0, 1, 33, 40_000]) {
    const channels = Array.from({ length: size }, (_, i) => channel(i));
    for (const [name, options] of forms) {
      it(`${size} channels, ${name}: the bytes of the whole playlist`, () => {
        const listed = channels.filter((ch) => !ch.disabled);
        const got = [...channelPlaylistPieces(playlistChannels(channels, null), url, options)];
        assert.equal(got.length, listed.length + 1);
        assert.equal(got.join(""), referencePlaylist(listed, url, options));
      });
    }
  }

  it("lists only enabled channels inside the scope, in catalog order", () => {
    const channels = Array.from({ length: 10 }, (_, i) => channel(i));
    const scope = new Set([channel(0).id, channel(3).id, channel(5).id, channel(9).id]);
    assert.deepEqual(
      [...playlistChannels(channels, scope)].map((ch) => ch.id),
      [3, 5, 9].map((i) => channel(i).id),
    );
  });
});
