import { BCRYPT_COST } from "../auth/passwords.js";
import { ENVIRONMENT_VARIABLES } from "../config/environment.js";

type Build = "full" | "lite";

/** The one-line synopsis printed with every usage error. */
export function usageLine(build: Build): string {
  const name = `gateway-${build}`;
  return `usage: ${name} [--config FILE] [--check-config] | ${name} hash-password | ${name} --help | --version`;
}

/** `--help`: the synopsis, every flag, the subcommand and every environment variable. */
export function helpText(build: Build): string {
  const name = `gateway-${build}`;
  const what =
    build === "full"
      ? "svc-gateway, full build: playback, admin API and console, state in SQLite under server.data_dir."
      : "svc-gateway, lite build: playback of the config file's static catalog; no database.";
  const defaultConfig =
    build === "full"
      ? "default: $SVC_CONFIG, else ./data/gateway.yaml (written with a new admin password on the first start)"
      : "default: $SVC_CONFIG (one of the two is required)";
  const width = Math.max(...ENVIRONMENT_VARIABLES.map(([n]) => n.length)) + 2;
  return [
    usageLine(build),
    "",
    what,
    `Run as: node apps/${name}/dist/main.js … (in the container image: ${name} …).`,
    "",
    "Options:",
    "  -c, --config FILE   the YAML config file;",
    `                      ${defaultConfig}`,
    "      --check-config  validate the config file and the key and certificate files it names,",
    "                      print one line per problem on stderr; exit 0 when valid, 2 otherwise;",
    "                      starts nothing and writes nothing",
    "  -h, --help          print this help and exit",
    "  -V, --version       print the version and commit and exit",
    "",
    "Commands:",
    "  hash-password       read a password (a prompt without echo on a terminal, else the first",
    `                      line of standard input; 8 to 72 bytes) and print its bcrypt hash (cost ${BCRYPT_COST})`,
    "                      for auth.users[].password_hash. Never pass a password as an argument.",
    "",
    "Environment:",
    ...ENVIRONMENT_VARIABLES.map(([n, effect]) => `  ${n.padEnd(width)}${effect}`),
    "",
    "Exit status: 0 success; 2 invalid command line or config; 1 any other failure.",
    "Docs: README.md, docs/configuration.md, docs/deploy.md.",
    "",
  ].join("\n");
}
