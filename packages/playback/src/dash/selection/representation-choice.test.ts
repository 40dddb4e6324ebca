import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LIVE_NUMBER_MPD } from "../manifest/fixtures/hand-written-mpds.js";
import type { AdaptationSet, Representation } from "../manifest/mpd-model.js";
import { parseMpd } from "../manifest/mpd-parser.js";
import { chooseVideo, selectRepresentations } from "./representation-choice.js";

const parsed = parseMpd(LIVE_NUMBER_MPD, { url: "https://o.example/m.mpd" });
assert.ok(parsed.ok);
const period = parsed.value.periods[0];
assert.ok(period);

describe("video choice", () => {
  const cases: [string, number | undefined, string][] = [
    ["no preference: the largest picture", undefined, "v1080"],
    ["exact height", 720, "v720"],
    ["closest height", 400, "v360"],
    ["above everything: the tallest", 4000, "v1080"],
    ["0 is a preference too", 0, "v360"],
  ];
  for (const [name, pref, want] of cases) {
    it(name, () =>
      assert.equal(
        selectRepresentations(period, pref === undefined ? {} : { preferHeight: pref }).video
          ?.representation.id,
        want,
      ),
    );
  }
  it("ties in distance go to the higher bandwidth", () => {
    const rep = (id: string, height: number, bandwidth: number): Representation =>
      ({
        id,
        height,
        width: height * 2,
        bandwidth,
        contentType: "video",
        audioChannelConfigurations: [],
        roles: [],
        contentProtection: [],
        baseUrl: "https://x/",
        baseUrlAvailabilityTimeOffset: 0,
        addressing: { kind: "unsupported", scheme: "none", reason: "" },
      }) as Representation;
    const set: AdaptationSet = {
      contentType: "video",
      roles: [],
      contentProtection: [],
      representations: [rep("a", 720, 3e6), rep("b", 1080, 6e6), rep("c", 720, 4e6)],
    };
    assert.equal(chooseVideo([set], 900)?.representation.id, "b");
    assert.equal(chooseVideo([set], 720)?.representation.id, "c");
    assert.equal(chooseVideo([set])?.representation.id, "b");
  });
});

describe("audio choice", () => {
  const cases: [string, string[] | undefined, [string, boolean, string | undefined][]][] = [
    ["no preference: the first audio set only", undefined, [["a-en", true, "en"]]],
    ["ISO 639-1 preference matches an ISO 639-2 @lang", ["de"], [["a-de", true, "de"]]],
    [
      "list order decides DEFAULT",
      ["ger", "en-US"],
      [
        ["a-de", true, "de"],
        ["a-en", false, "en"],
      ],
    ],
    ["unmatched preferences fall back to the first set", ["fr", "it"], [["a-en", true, "en"]]],
    [
      "duplicates in the preference list are harmless",
      ["en", "eng", "de"],
      [
        ["a-en", true, "en"],
        ["a-de", false, "de"],
      ],
    ],
  ];
  for (const [name, langs, want] of cases) {
    it(name, () => {
      const s = selectRepresentations(period, langs ? { preferredAudioLanguages: langs } : {});
      assert.deepEqual(
        s.audio.map((a) => [a.representation.id, a.isDefault, a.language]),
        want,
      );
    });
  }
  it("picks the highest-bandwidth representation of each set", () => {
    assert.equal(selectRepresentations(period, {}).audio[0]?.representation.bandwidth, 128000);
  });
});

describe("subtitles are left out without breaking anything", () => {
  it("reports the stpp set as skipped", () => {
    assert.deepEqual(selectRepresentations(period).skipped, [
      {
        adaptationSetId: "4",
        contentType: "text",
        reason: "subtitles are not published by the native engine",
      },
    ]);
  });
  it("an MPD with only subtitles selects nothing", () => {
    const subsOnly = {
      ...period,
      adaptationSets: period.adaptationSets.filter((s) => s.contentType === "text"),
    };
    const s = selectRepresentations(subsOnly, { preferredAudioLanguages: ["en"] });
    assert.equal(s.video, undefined);
    assert.deepEqual(s.audio, []);
    assert.equal(s.skipped.length, 1);
  });
});
