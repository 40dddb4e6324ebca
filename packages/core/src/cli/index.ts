export { type BuildInfo, readBuildInfo } from "./build-info.js";
export { type ConfigCheck, checkConfig } from "./check-config.js";
export { type Command, parseCommandLine } from "./command-line.js";
export { type CliOptions, runCli } from "./run-cli.js";
export { helpText, usageLine } from "./usage.js";
