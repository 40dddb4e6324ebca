// Guide matching benchmark (docs/benchmarks.md "Guide matching"): the channel
// matcher alone, in process, over the guide benchmark's shape (guide-xmltv.mjs):
// N guide channels "Channel 00001 HD" and N catalog titles spelt three ways
// (`CHANNEL 00001`, `UK: Channel 00001 FHD`, `channel.00001`). Prints the CPU
// time (user + system) of building the index and of matching every channel,
// and the heap it holds; CPU time is steadier than wall time on a busy machine.
// Run after `npm run build`:
//   node bench/guide-matching.mjs                 # 40,000 channels
//   node bench/guide-matching.mjs --channels 1000
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(fileURLToPath(import.meta.url), "..", "..");
const { createChannelMatcher } = await import(
  join(root, "packages/admin-api/dist/services/guide/channel-matcher.js")
);
const i = process.argv.indexOf("--channels");
const N = i === -1 ? 40_000 : Number(process.argv[i + 1]);
const pad = (n) => String(n).padStart(5, "0");

const guide = Array.from({ length: N }, (_, c) => ({
  sourceId: "bench",
  xmltvId: `ch${pad(c)}.bench`,
  displayNames: [`Channel ${pad(c)} HD`],
  icon: `http://127.0.0.1:9/logo/${c}.png`,
  present: true,
}));
const channels = Array.from({ length: N }, (_, c) => ({
  id: `c${c}`,
  title:
    c % 3 === 0
      ? `CHANNEL ${pad(c)}`
      : c % 3 === 1
        ? `UK: Channel ${pad(c)} FHD`
        : `channel.${pad(c)}`,
  epg_id: "",
  epg_source: "",
  epg_name: "",
}));

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const heap0 = process.memoryUsage().heapUsed;
const c0 = cpu();
const matcher = createChannelMatcher(guide, ["bench"]);
const c1 = cpu();
const results = channels.map((ch) => matcher.match(ch));
const c2 = cpu();
const matched = results.filter((r) => r.status === "matched").length;
console.log(
  JSON.stringify({
    channels: N,
    index_cpu_ms: Math.round(c1 - c0),
    match_cpu_ms: Math.round(c2 - c1),
    total_cpu_ms: Math.round(c2 - c0),
    matched,
    heap_growth_mib: Math.round((process.memoryUsage().heapUsed - heap0) / 1048576),
    target: "matching 40,000 channels < 2 s",
  }),
);
