import { parseArgs } from "node:util";

/** What one invocation of a gateway binary asks for. */
export type Command =
  | { readonly kind: "help" }
  | { readonly kind: "version" }
  | { readonly kind: "hash-password" }
  | { readonly kind: "check-config"; readonly configPath: string | undefined }
  | { readonly kind: "run"; readonly configPath: string | undefined }
  /** Exit 2 with the message and the usage line. */
  | { readonly kind: "usage-error"; readonly message: string };

const OPTIONS = {
  config: { type: "string", short: "c" },
  "check-config": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

/**
 * Reads the command line of either binary with `node:util` `parseArgs` (strict:
 * unknown flags, a missing value and stray arguments are usage errors); then
 * `--help` wins over everything, then `--version`. The only positional is the
 * `hash-password` subcommand, which takes no flag but `--help`: a password is
 * never accepted on the command line, where `ps` and shell history would see it.
 * @example parseCommandLine(["--config", "gw.yaml", "--check-config"]) // {kind: "check-config", configPath: "gw.yaml"}
 */
export function parseCommandLine(argv: readonly string[]): Command {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    // parseArgs explains how to pass a positional that starts with "-": the first sentence is enough.
    return { kind: "usage-error", message: (err as Error).message.split(/\.( |$)/)[0]! };
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (command !== undefined && command !== "hash-password")
    return { kind: "usage-error", message: `unknown command "${command}"` };
  if (rest.length > 0)
    return {
      kind: "usage-error",
      message:
        "hash-password takes no argument: it reads the password from a prompt or standard input",
    };
  if (values.help === true) return { kind: "help" };
  if (values.version === true) return { kind: "version" };
  if (command !== undefined) {
    if (values.config !== undefined || values["check-config"] === true)
      return { kind: "usage-error", message: "hash-password takes no option" };
    return { kind: "hash-password" };
  }
  if (values.config === "") return { kind: "usage-error", message: "--config needs a file name" };
  return values["check-config"] === true
    ? { kind: "check-config", configPath: values.config }
    : { kind: "run", configPath: values.config };
}
