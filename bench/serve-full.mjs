// Starts the built full gateway like its binary does, with the playback access
// log switched on or off (a composition option, not a config key), so one
// benchmark run can compare both. Usage: node bench/serve-full.mjs --config FILE --access-log on|off
import { parseArgs } from "node:util";
import { composeFull } from "../apps/gateway-full/dist/app.js";
import { bootGateway } from "../packages/core/dist/cli/boot.js";
import { readBuildInfo } from "../packages/core/dist/cli/index.js";
import { readEnvironment } from "../packages/core/dist/config/index.js";

const { values } = parseArgs({
  options: { config: { type: "string" }, "access-log": { type: "string", default: "on" } },
});
const accessLog = values["access-log"] !== "off";

await bootGateway({
  build: "full",
  info: readBuildInfo(new URL("../apps/gateway-full/dist/build-info.json", import.meta.url)),
  env: readEnvironment(),
  configPath: values.config ?? readEnvironment().configPath,
  compose: (ctx) => composeFull(ctx, { accessLog }),
});
