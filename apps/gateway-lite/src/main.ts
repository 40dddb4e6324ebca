#!/usr/bin/env node
import { readBuildInfo, runCli } from "@svc/core/cli";
import { composeLite } from "./app.js";

await runCli({
  build: "lite",
  argv: process.argv.slice(2),
  info: readBuildInfo(new URL("./build-info.json", import.meta.url)),
  compose: composeLite,
});
