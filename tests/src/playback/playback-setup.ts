import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importPKCS8, SignJWT } from "jose";

/** Every URL a playlist text refers to: URI lines and `URI="…"` attributes. */
export function playlistUrls(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t === "") continue;
    if (!t.startsWith("#")) out.push(t);
    for (const m of t.matchAll(/URI="([^"]+)"/g)) out.push(m[1]!);
  }
  return out;
}

/** GET with no redirect following; the body as bytes. */
export async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; bytes: Buffer; text: string; json: any }> {
  const res = await fetch(url, { headers, redirect: "manual" });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, text, json };
}

/** Plays `url` to the end with ffmpeg as an independent client; resolves exit code and stderr. */
export function ffmpegPlays(url: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "ffmpeg",
      ["-hide_banner", "-v", "error", "-i", url, "-map", "0", "-c", "copy", "-f", "null", "-"],
      { timeout: 60_000 },
      (err, _stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === "number" ? err.code : 1;
        resolve({ code, stderr });
      },
    );
  });
}

/** A preview JWT for one channel, signed with the gateway's generated key (as the preview endpoint would). */
export async function mintPreviewToken(
  dataDir: string,
  channelId: string,
  username = "admin",
): Promise<string> {
  const pem = readFileSync(join(dataDir, "auth", "ed25519.pem"), "utf8");
  const key = await importPKCS8(pem, "EdDSA");
  const now = Math.floor(Date.now() / 1000);
  // `acct`: the stable account key (the config username) sessions and previews are bound to.
  return new SignJWT({
    kind: "preview",
    acct: username,
    role: "admin",
    channels: [channelId],
    rev: 0,
  })
    .setProtectedHeader({ alg: "EdDSA", typ: "JWT" })
    .setIssuer("svc")
    .setAudience("svc")
    .setSubject(username)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + 300)
    .setJti(`preview-${now}-${channelId}`)
    .sign(key);
}

/** Waits until `check` holds, polling; fails after `ms` (a bound on waiting, not a timing assertion). */
export async function eventually(check: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Short upstream timeouts so failure tests end quickly. */
export const FAST_EGRESS = {
  connect_timeout_ms: 1000,
  first_byte_timeout_ms: 800,
  idle_timeout_ms: 800,
};
