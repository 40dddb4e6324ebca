// A preload for a benchmarked Node process: V8's sampling heap profiler, keeping the samples
// of objects already collected (the garbage, which `--heap-prof` leaves out), written every
// 20 s to SVC_ALLOC_DIR (default the working directory) as alloc-{pid}-{n}.heapprofile, each
// cumulative since the start. The difference of two shows who allocated in between (load the
// files in Chrome DevTools' Memory tab, or sum `samples[].size` per node). Loopback benches
// only; never in production.
//
//   SVC_ALLOC_DIR=/tmp/alloc taskset -c 1 node bench/cenc-channel-cpu.mjs --channels 1 \
//     --seconds 30 --viewer --variants clear --mpd timeline \
//     --node-args "--import=./bench/probes/allocation-sampling.mjs"
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.SVC_ALLOC_DIR ?? ".";
const session = new Session();
session.connect();
const post = (method, params) =>
  new Promise((resolve, reject) =>
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
  );
await post("HeapProfiler.enable");
await post("HeapProfiler.startSampling", {
  samplingInterval: 8192,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
let n = 0;
setInterval(async () => {
  const { profile } = await post("HeapProfiler.getSamplingProfile");
  writeFileSync(join(dir, `alloc-${process.pid}-${n++}.heapprofile`), JSON.stringify(profile));
}, 20_000).unref();
