// A loopback origin serving one small live HLS playlist, in its own process so
// a blocking load generator in the parent cannot stall it. Prints its URL.
import { createServer } from "node:http";

const PLAYLIST = [
  "#EXTM3U",
  "#EXT-X-VERSION:3",
  "#EXT-X-TARGETDURATION:4",
  "#EXT-X-MEDIA-SEQUENCE:1",
  ...Array.from({ length: 6 }, (_, i) => ["#EXTINF:4.0,", `seg${i + 1}.ts`]).flat(),
  "",
].join("\n");

const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
  res.end(PLAYLIST);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`origin on http://127.0.0.1:${server.address().port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
