import { readFileSync } from "node:fs";

/** Name, version and commit of a built binary (`dist/build-info.json`, written at build time). */
export interface BuildInfo {
  readonly name: string;
  readonly version: string;
  readonly commit: string;
}

/**
 * Reads the `build-info.json` the build wrote beside the binary; a missing or
 * broken file gives "unknown" rather than stopping `--version` or the start.
 * @example readBuildInfo(new URL("./build-info.json", import.meta.url))
 */
export function readBuildInfo(file: URL): BuildInfo {
  try {
    const raw = JSON.parse(readFileSync(file, "utf8")) as Partial<BuildInfo>;
    return {
      name: typeof raw.name === "string" ? raw.name : "svc-gateway",
      version: typeof raw.version === "string" ? raw.version : "unknown",
      commit: typeof raw.commit === "string" ? raw.commit : "unknown",
    };
  } catch {
    return { name: "svc-gateway", version: "unknown", commit: "unknown" };
  }
}
