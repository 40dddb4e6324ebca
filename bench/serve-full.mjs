// Starts the built full gateway like its binary does, with the playback access
// log switched on or off (a composition option, not a config key), so one
// benchmark run can compare both. Usage: node bench/serve-full.mjs --config FILE --access-log on|off
import { composeFull } from "../apps/gateway-full/dist/app.js";
import { bootGateway } from "../packages/core/dist/boot.js";

const argv = process.argv.slice(2);
const flag = argv.indexOf("--access-log");
const accessLog = flag === -1 || argv[flag + 1] !== "off";

await bootGateway({
  build: "full",
  argv,
  compose: (ctx) => composeFull(ctx, { accessLog }),
});
