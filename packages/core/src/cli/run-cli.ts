import { readEnvironment } from "../config/environment.js";
import { formatProblem } from "../config/problems.js";
import { type BootOptions, bootGateway } from "./boot.js";
import type { BuildInfo } from "./build-info.js";
import { checkConfig, environmentProblems } from "./check-config.js";
import { parseCommandLine } from "./command-line.js";
import { runHashPassword } from "./hash-password.js";
import { helpText, usageLine } from "./usage.js";

export interface CliOptions {
  readonly build: "full" | "lite";
  readonly argv: readonly string[];
  readonly info: BuildInfo;
  /**
   * Full build: the config used when neither `--config` nor `SVC_CONFIG` names
   * one. `--check-config` only reads `path`; `prepare` (which may write the
   * first-run file) is called only when the gateway actually starts.
   */
  readonly defaultConfig?: { readonly path: string; readonly prepare: () => Promise<string> };
  readonly compose: BootOptions["compose"];
}

/**
 * The command line of both binaries (operator contract "Commands"): `--help`,
 * `--version`, `--check-config`, `hash-password`, or a start. Exit status 0 on
 * success, 2 on a usage error or an invalid config; only a start writes to disk.
 * @example await runCli({ build: "lite", argv: process.argv.slice(2), info, compose: composeLite });
 */
export async function runCli(options: CliOptions): Promise<void> {
  const { build } = options;
  const command = parseCommandLine(options.argv);
  const fail = (lines: readonly string[]) => {
    for (const line of lines) process.stderr.write(`${line}\n`);
    process.exitCode = 2;
  };
  switch (command.kind) {
    case "usage-error":
      return fail([`${command.message}`, usageLine(build)]);
    case "help":
      process.stdout.write(helpText(build));
      return;
    case "version": {
      const { name, version, commit } = options.info;
      process.stdout.write(`${name} ${build} ${version} (commit ${commit})\n`);
      return;
    }
    case "hash-password": {
      const result = await runHashPassword();
      if (!result.ok) return fail([`hash-password: ${result.message}`]);
      process.stdout.write(`${result.hash}\n`);
      return;
    }
    case "check-config": {
      const env = readEnvironment();
      const path = command.configPath ?? env.configPath ?? options.defaultConfig?.path;
      if (path === undefined) return fail([NO_CONFIG]);
      const { problems, config } = checkConfig(path, env, build);
      if (problems.length > 0) return fail(problems.map(formatProblem));
      process.stdout.write(
        `config ok: ${config!.sourcePath} (${config!.auth.users.length} user(s), ${config!.channels.length} channel(s))\n`,
      );
      return;
    }
    case "run": {
      const env = readEnvironment();
      const envProblems = environmentProblems(env);
      if (envProblems.length > 0) return fail(envProblems.map(formatProblem));
      const path = command.configPath ?? env.configPath ?? (await options.defaultConfig?.prepare());
      if (path === undefined) return fail([NO_CONFIG, usageLine(build)]);
      await bootGateway({
        build,
        info: options.info,
        env,
        configPath: path,
        compose: options.compose,
      });
      return;
    }
  }
}

const NO_CONFIG = "no config file: pass --config FILE or set SVC_CONFIG";
