import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LIVE_NUMBER_MPD } from "../manifest/fixtures/hand-written-mpds.js";
import { parseMpd } from "../manifest/mpd-parser.js";
import { selectRepresentations } from "../selection/representation-choice.js";
import { masterInputFromSelection, renderMasterPlaylist } from "./master-playlist.js";
import { validateMasterPlaylist } from "./playlist-validator.js";

const parsed = parseMpd(LIVE_NUMBER_MPD, { url: "https://o.example/m.mpd" });
assert.ok(parsed.ok);
const period = parsed.value.periods[0];
assert.ok(period);

describe("renderMasterPlaylist from a selection", () => {
  it("renders variant + audio group exactly", () => {
    const selection = selectRepresentations(period, {
      preferHeight: 720,
      preferredAudioLanguages: ["en", "de"],
    });
    const text = renderMasterPlaylist(
      masterInputFromSelection(selection, {
        videoUri: "video.m3u8",
        audioUri: (i) => `audio-${i}.m3u8`,
      }),
    );
    assert.equal(
      text,
      [
        "#EXTM3U",
        "#EXT-X-VERSION:6",
        "#EXT-X-INDEPENDENT-SEGMENTS",
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio-0.m3u8"',
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="German",LANGUAGE="de",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="6",URI="audio-1.m3u8"',
        // 3 000 000 video + 384 000 (largest audio of the group); codecs of video and every audio rendition.
        '#EXT-X-STREAM-INF:BANDWIDTH=3384000,CODECS="avc1.64001f,mp4a.40.2,ec-3",RESOLUTION=1280x720,FRAME-RATE=29.970,AUDIO="audio"',
        "video.m3u8",
        "",
      ].join("\n"),
    );
    assert.deepEqual(validateMasterPlaylist(text), []);
  });
  it("gives duplicate language names a suffix and keeps one DEFAULT", () => {
    const text = renderMasterPlaylist({
      variants: [
        {
          uri: "v.m3u8",
          bandwidth: 1000,
          codecs: "avc1.4d401f",
          width: 640,
          height: 360,
          frameRate: 25,
          averageBandwidth: 800,
          audioGroupId: "a",
        },
      ],
      audio: [
        {
          groupId: "a",
          name: "English",
          language: "en",
          isDefault: true,
          autoselect: false,
          uri: "a0.m3u8",
          bandwidth: 100,
          codecs: "mp4a.40.2",
        },
        {
          groupId: "a",
          name: "English (2)",
          language: "en",
          isDefault: false,
          autoselect: false,
          uri: "a1.m3u8",
          bandwidth: 200,
        },
      ],
    });
    assert.match(
      text,
      /NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,/,
      "DEFAULT forces AUTOSELECT",
    );
    assert.match(text, /NAME="English \(2\)",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=NO,/);
    assert.match(
      text,
      /BANDWIDTH=1200,AVERAGE-BANDWIDTH=1000,CODECS="avc1\.4d401f,mp4a\.40\.2",RESOLUTION=640x360,FRAME-RATE=25\.000,AUDIO="a"/,
    );
    assert.deepEqual(validateMasterPlaylist(text), []);
  });
  it("names duplicated languages from a selection uniquely", () => {
    const de = period.adaptationSets[2];
    assert.ok(de);
    const twoGerman = { ...period, adaptationSets: [...period.adaptationSets, { ...de, id: "9" }] };
    const s = selectRepresentations(twoGerman, { preferredAudioLanguages: ["de"] });
    const input = masterInputFromSelection(s, {
      videoUri: "v.m3u8",
      audioUri: (i) => `a${i}.m3u8`,
    });
    assert.deepEqual(
      input.audio.map((a) => a.name),
      ["German", "German (2)"],
    );
    assert.deepEqual(validateMasterPlaylist(renderMasterPlaylist(input)), []);
  });
  it("audio-only source: the first rendition becomes the variant", () => {
    const audioOnly = {
      ...period,
      adaptationSets: period.adaptationSets.filter((a) => a.contentType === "audio"),
    };
    const input = masterInputFromSelection(selectRepresentations(audioOnly), {
      videoUri: "v.m3u8",
      audioUri: (i) => `a${i}.m3u8`,
    });
    const text = renderMasterPlaylist(input);
    assert.match(text, /#EXT-X-STREAM-INF:BANDWIDTH=128000,CODECS="mp4a\.40\.2"\na0\.m3u8\n$/);
    assert.ok(!text.includes("EXT-X-MEDIA"));
    assert.deepEqual(validateMasterPlaylist(text), []);
  });
});
