// A stand-in gateway for the orphan test: starts one compatibility-engine session, prints
// `pid <n>` once ffmpeg runs, then idles until it is SIGKILLed. Never stops its session.
import { startFfmpegSession } from "@svc/playback/sessions/ffmpeg/ffmpeg-supervisor";

const [dataDir, url] = process.argv.slice(2);
if (dataDir === undefined || url === undefined) {
  process.stderr.write("usage: engine-child DATA_DIR MPD_URL\n");
  process.exit(2);
}
const r = await startFfmpegSession({
  ffmpegPath: "ffmpeg",
  dataDir,
  channelId: "orphan",
  generation: 1,
  source: { url },
});
if (!r.ok) {
  process.stderr.write(`${r.error}\n`);
  process.exit(1);
}
const session = r.value;
session.on("state", (s) => {
  if (s.state === "running") process.stdout.write(`pid ${s.pid}\n`);
});
setInterval(() => {}, 60_000);
