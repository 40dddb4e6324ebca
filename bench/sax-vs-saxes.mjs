// Measures sax vs saxes on a synthetic live MPD with many SegmentTimeline S elements.
// Re-run: npm i --no-save sax saxes && node bench/sax-vs-saxes.mjs
import { performance } from "node:perf_hooks";
import sax from "sax";
import { SaxesParser } from "saxes";

function buildMpd(sCount) {
  const parts = [];
  parts.push(
    '<?xml version="1.0" encoding="utf-8"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" type="dynamic" availabilityStartTime="2024-01-01T00:00:00Z" minimumUpdatePeriod="PT2S" timeShiftBufferDepth="PT3H" profiles="urn:mpeg:dash:profile:isoff-live:2011">',
  );
  parts.push('<Period id="p0" start="PT0S">');
  const perSet = Math.ceil(sCount / 2);
  for (const [id, ct] of [
    ["v", "video"],
    ["a", "audio"],
  ]) {
    parts.push(
      `<AdaptationSet id="${id}" contentType="${ct}" segmentAlignment="true"><ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" cenc:default_KID="10000000-1000-1000-1000-100000000001"/>`,
    );
    parts.push(
      `<SegmentTemplate timescale="90000" media="${id}_$RepresentationID$_$Time$.m4s" initialization="${id}_$RepresentationID$_init.mp4"><SegmentTimeline>`,
    );
    let t = 0;
    for (let i = 0; i < perSet; i++) {
      const d = 180000 + (i % 3) * 10;
      parts.push(`<S t="${t}" d="${d}"${i % 7 === 0 ? ' r="1"' : ""}/>`);
      t += d * (i % 7 === 0 ? 2 : 1);
    }
    parts.push("</SegmentTimeline></SegmentTemplate>");
    parts.push(
      `<Representation id="${id}1" bandwidth="3000000" codecs="avc1.64001f" width="1280" height="720"/>`,
    );
    parts.push("</AdaptationSet>");
  }
  parts.push("</Period></MPD>");
  return parts.join("\n");
}

function runSax(xml) {
  let count = 0;
  const p = sax.parser(true, { xmlns: false, position: false, trim: false });
  p.onopentag = (node) => {
    count += Object.keys(node.attributes).length > 0 ? 1 : 0;
  };
  p.onerror = (e) => {
    throw e;
  };
  p.write(xml).close();
  return count;
}

function runSaxes(xml) {
  let count = 0;
  const p = new SaxesParser({ xmlns: false, position: false });
  p.on("opentag", (node) => {
    count += Object.keys(node.attributes).length > 0 ? 1 : 0;
  });
  p.on("error", (e) => {
    throw e;
  });
  p.write(xml).close();
  return count;
}

function measure(name, fn, xml, rounds) {
  for (let i = 0; i < 5; i++) fn(xml); // warm-up
  const times = [];
  let heapPeak = 0;
  for (let i = 0; i < rounds; i++) {
    const before = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    fn(xml);
    times.push(performance.now() - t0);
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed - before);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const p90 = times[Math.floor(times.length * 0.9)];
  const mbps = xml.length / 1e6 / (median / 1000);
  console.log(
    `${name.padEnd(6)} median ${median.toFixed(2)} ms  p90 ${p90.toFixed(2)} ms  ${mbps.toFixed(1)} MB/s  heap delta <= ${(heapPeak / 1e6).toFixed(1)} MB`,
  );
}

for (const sCount of [5000, 50000]) {
  const xml = buildMpd(sCount);
  console.log(`MPD with ${sCount} S elements, ${(xml.length / 1024).toFixed(0)} KiB`);
  if (runSax(xml) !== runSaxes(xml)) throw new Error("parsers disagree");
  measure("sax", runSax, xml, 30);
  measure("saxes", runSaxes, xml, 30);
}
