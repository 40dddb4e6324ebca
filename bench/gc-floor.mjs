// The floor under issue 30 item 1's 50 ms bound: a bare Node process (no gateway code) holding
// as many import entries as a 32 MiB M3U (164,923 objects of an entry's fields) alive while it
// works in 8 ms slices, as the import does, for 6 s. A 1 ms timer records the gaps between its
// ticks; run with --trace-gc to see that the long ones are V8's Mark-Compact pauses.
//
//   node --trace-gc bench/gc-floor.mjs | grep -E "Mark-Compact|bare"
const live = [];
for (let i = 0; i < 164923; i++)
  live.push({
    id: `ch${i}.bench`,
    title: `Channel ${i} HD`,
    group: `Group ${i % 50}`,
    logo_url: `http://127.0.0.1:9/logo/${i}.png`,
    epg_id: `ch${i}.bench`,
    epg_name: `Channel ${i}`,
    source_url: `http://127.0.0.1:9/live/${i}/index.m3u8`,
    headers: {},
    user_agent: i % 10 ? "" : "BenchPlayer/1.0",
    sort_order: i,
    status: "new",
    revision: 1,
  });
let last = performance.now(),
  max = 0;
const gaps = [];
const t = setInterval(() => {
  const n = performance.now();
  gaps.push(n - last);
  last = n;
}, 1);
const end = performance.now() + 6000;
let i = 0;
while (performance.now() < end) {
  const until = performance.now() + 8;
  while (performance.now() < until) {
    live[i % live.length] = { ...live[i % live.length], title: `t${i}` };
    i++;
  }
  await new Promise((r) => setImmediate(r));
}
clearInterval(t);
gaps.sort((a, b) => b - a);
console.log(
  `bare Node, ${live.length} live entries, 8 ms slices for 6 s: longest turn ${gaps[0].toFixed(1)} ms, next ${gaps
    .slice(1, 4)
    .map((g) => g.toFixed(1))
    .join(", ")}; over 50 ms: ${gaps.filter((g) => g > 50).length}`,
);
