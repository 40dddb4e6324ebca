import { read } from "read";
import { createPasswordHasher } from "../auth/passwords.js";

/** Spec "Limits": passwords are 8 to 72 bytes (bcrypt reads at most 72). */
const MIN_BYTES = 8;
const MAX_BYTES = 72;
/** Standard input is read up to this many bytes: a password line, not a file. */
const STDIN_CEILING = 4096;

/** The result of `hash-password`: the hash, or the one line to print before exiting 2. */
export type HashPasswordResult = { ok: true; hash: string } | { ok: false; message: string };

/**
 * `hash-password`: the password comes from a prompt without echo when standard
 * input is a terminal (asked twice), else from the first line of standard input;
 * never from argv, the environment or a file, and it is written nowhere.
 * @example printf '%s\n' "$PASSWORD" | gateway-lite hash-password   # prints $2b$12$…
 */
export async function runHashPassword(
  stdin: NodeJS.ReadStream = process.stdin,
): Promise<HashPasswordResult> {
  let password: string;
  if (stdin.isTTY === true) {
    // `read` mutes the terminal echo (readline over mute-stream); the prompt goes
    // to stderr so that stdout carries only the hash.
    const ask = (prompt: string) =>
      read({ prompt, silent: true, replace: "", input: stdin, output: process.stderr });
    try {
      password = await ask("Password: ");
      process.stderr.write("\n");
      const again = await ask("Repeat password: ");
      process.stderr.write("\n");
      if (again !== password) return { ok: false, message: "the two passwords differ" };
    } catch {
      return { ok: false, message: "no password read (prompt cancelled)" };
    }
  } else {
    const line = await firstLine(stdin);
    if (line === undefined) return { ok: false, message: "no password on standard input" };
    password = line;
  }
  const bytes = Buffer.byteLength(password, "utf8");
  if (bytes < MIN_BYTES || bytes > MAX_BYTES)
    return {
      ok: false,
      message: `the password must be ${MIN_BYTES} to ${MAX_BYTES} bytes, got ${bytes}`,
    };
  // One hash in a process of its own: one slot is all it needs.
  return { ok: true, hash: await createPasswordHasher({ cores: 1 }).hash(password) };
}

/** The first line of a stream (without its CR LF or LF); undefined when it is empty. */
async function firstLine(stream: NodeJS.ReadableStream): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(buf);
    size += buf.length;
    if (buf.includes(0x0a) || size >= STDIN_CEILING) break;
  }
  const text = Buffer.concat(chunks).subarray(0, STDIN_CEILING).toString("utf8");
  if (text === "") return undefined;
  const end = text.indexOf("\n");
  return (end === -1 ? text : text.slice(0, end)).replace(/\r$/, "");
}
