// A stand-in gateway: starts one compatibility-engine session, prints `pid <n>` once ffmpeg
// runs, then idles. SIGTERM: graceful shutdown through stopAllFfmpegSessions. SIGUSR2:
// process.exit without stopping anything (the exit hook must still kill ffmpeg). SIGKILL:
// nothing runs at all (the orphan case).
import { startFfmpegSession, stopAllFfmpegSessions } from "@svc/playback/ffmpeg-engine";

const [dataDir, url, channelId = "orphan"] = process.argv.slice(2);
if (dataDir === undefined || url === undefined) {
  process.stderr.write("usage: engine-child DATA_DIR MPD_URL\n");
  process.exit(2);
}
const r = await startFfmpegSession({
  ffmpegPath: "ffmpeg",
  dataDir,
  channelId,
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
process.once("SIGTERM", () => {
  void stopAllFfmpegSessions().then(() => process.exit(0));
});
process.once("SIGUSR2", () => process.exit(3));
setInterval(() => {}, 60_000);
