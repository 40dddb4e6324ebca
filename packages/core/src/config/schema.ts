import * as v from "valibot";
import { parseAllowedHost } from "../egress/host-allowlist.js";
import { channelFields, httpUrl, mediaKeysSchema } from "./channel-schema.js";

/** `host:port` (IPv6 hosts in brackets); port 0 picks a free port. */
const listenAddress = v.pipe(
  v.string(),
  v.check((s) => parseListen(s) !== undefined, 'must be "host:port" with a port 0..65535'),
);

/** Parses `host:port` / `[v6]:port`; undefined when malformed. */
export function parseListen(s: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(s);
  if (m === null) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  return { host: (m[1] ?? m[2])!, port };
}

const ADVERTISE_URL_MESSAGE = "must be an absolute http(s) URL without user, query or fragment";

/**
 * `server.advertise_url`: how the other instances reach this one. It is handed to them
 * (through the shared database) and paths are joined to it, so it names only a scheme,
 * host, port and optional path prefix: no credentials (they would sit in the database),
 * no query or fragment (a joined path would land inside them).
 */
const advertiseUrl = v.pipe(
  v.string(),
  v.check((s) => {
    if (s.includes("?") || s.includes("#")) return false;
    try {
      const u = new URL(s);
      return (
        (u.protocol === "http:" || u.protocol === "https:") &&
        u.hostname !== "" &&
        u.username === "" &&
        u.password === ""
      );
    } catch {
      return false;
    }
  }, ADVERTISE_URL_MESSAGE),
);

/** Shortest accepted `security.signing_key`: 256 bits, the HMAC-SHA256 output size. */
export const SIGNING_KEY_MIN_BYTES = 32;

/** A timeout in milliseconds: 100 ms .. 5 min. */
const timeoutMs = v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(300_000));

/** bcrypt hash in modular crypt format (`$2a$`, `$2b$`, `$2y$`). */
const BCRYPT_HASH = /^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/;

const userSchema = v.strictObject({
  username: v.pipe(
    v.string(),
    v.minLength(1, "must not be empty"),
    v.maxLength(64, "at most 64 characters"),
  ),
  password_hash: v.pipe(v.string(), v.regex(BCRYPT_HASH, "must be a bcrypt hash")),
  role: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_-]{0,31}$/, "must be a lowercase role name")),
  channel_ids: v.optional(v.array(v.string()), []),
});

/** The most `server.workers` may ask for. */
export const MAX_WORKERS = 64;

/** Sections are objects; a missing section is read as `{}` by the loader so its keys get defaults. */
const section = v.strictObject;

/** Top-level mapping keys that hold a section (filled with `{}` when absent). */
export const SECTION_KEYS = [
  "server",
  "auth",
  "security",
  "observe",
  "media",
  "egress",
  "guide",
  "extensions",
] as const;

const channelSchema = v.strictObject(channelFields);

export const configSchema = v.strictObject({
  server: section({
    listen: v.optional(listenAddress, "127.0.0.1:8080"),
    data_dir: v.optional(v.string(), "./data"),
    tls_listen: v.optional(v.union([v.literal(""), listenAddress]), ""),
    tls_cert_file: v.optional(v.string(), ""),
    tls_key_file: v.optional(v.string(), ""),
    public_base_url: v.optional(v.union([v.literal(""), httpUrl("must be an http(s) URL")]), ""),
    // Contract "Cluster mode": a shared PostgreSQL; "" keeps the embedded SQLite. Never
    // echoed in a problem line (it may hold a password).
    database_url: v.optional(v.string(), ""),
    advertise_url: v.optional(v.union([v.literal(""), advertiseUrl], ADVERTISE_URL_MESSAGE), ""),
    // Gateway processes on the listen port (docs/cluster.md "Workers"): 1 (one process),
    // "auto" (one per core) or 1..64. Full build on the embedded SQLite only.
    workers: v.optional(
      v.union(
        [
          v.literal("auto"),
          v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_WORKERS)),
        ],
        `must be "auto" or an integer 1..${MAX_WORKERS}`,
      ),
      1,
    ),
  }),
  auth: section({
    users: v.pipe(v.array(userSchema), v.minLength(1, "at least one user is required")),
    token_private_key: v.optional(v.string(), ""),
    token_private_key_file: v.optional(v.string(), ""),
    token_public_key: v.optional(v.string(), ""),
    token_public_key_file: v.optional(v.string(), ""),
    token_issuer: v.optional(v.pipe(v.string(), v.minLength(1)), "svc"),
    token_audience: v.optional(v.pipe(v.string(), v.minLength(1)), "svc"),
    // Spec "Session signing" 4: any value at or below zero falls back to 24.
    token_ttl_hours: v.optional(v.number(), 24),
    login_rate_per_min: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100000)),
      20,
    ),
  }),
  security: section({
    play_require_auth: v.optional(v.boolean(), true),
    allowed_hosts: v.optional(
      v.array(
        v.pipe(
          v.string(),
          v.check(
            (s) => parseAllowedHost(s) !== undefined,
            'must be "host", "host:port" or "[ipv6]:port" with a port 1..65535',
          ),
        ),
      ),
      [],
    ),
    public_hosts: v.optional(v.array(v.pipe(v.string(), v.minLength(1))), []),
    cors_origins: v.optional(v.array(v.pipe(v.string(), v.minLength(1))), []),
    max_playlist_bytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1024)), 8388608),
    max_body_bytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1024)), 1048576),
    // HMAC-SHA256 key of u/ URLs and viewer leases: at least as long as the hash
    // output (RFC 2104 3: shorter keys weaken it); empty means a generated one.
    signing_key: v.optional(
      v.pipe(
        v.string(),
        v.check(
          (s) => s === "" || Buffer.byteLength(s, "utf8") >= SIGNING_KEY_MIN_BYTES,
          `must be at least ${SIGNING_KEY_MIN_BYTES} bytes (empty: a generated key)`,
        ),
      ),
      "",
    ),
  }),
  observe: section({
    enabled: v.optional(v.boolean(), true),
  }),
  media: section({
    ffmpeg_path: v.optional(v.pipe(v.string(), v.minLength(1)), "ffmpeg"),
    keys: v.optional(mediaKeysSchema, {}),
    low_latency: v.optional(v.boolean(), true),
    // LL-HLS part size the DASH engine groups CMAF chunks to (docs/sessions.md "LL-HLS
    // parts"); never below the source's chunk duration.
    part_target_ms: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(5000)),
      333,
    ),
    idle_stop_sec: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 60),
    // Extensions "Fallback sources and the slate" (docs/failover.md).
    failback_sec: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 120),
    slate_max_sec: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 3600),
  }),
  egress: section({
    default: v.optional(v.string(), "direct"),
    playlist_policy: v.optional(v.picklist(["rewrite", "passthrough", "auto"]), "rewrite"),
    docker_proxy_host: v.optional(v.string(), ""),
    min_test_kbps: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1000),
    // Bounded waits of every upstream request (docs/playback.md "Timeouts").
    connect_timeout_ms: v.optional(timeoutMs, 5000),
    first_byte_timeout_ms: v.optional(timeoutMs, 15000),
    idle_timeout_ms: v.optional(timeoutMs, 20000),
    proxies: v.optional(
      v.array(
        v.strictObject({
          id: v.pipe(
            v.string(),
            v.minLength(1),
            v.check((s) => s !== "direct", 'may not be "direct"'),
          ),
          name: v.optional(v.string(), ""),
          url: v.string(),
          disabled: v.optional(v.boolean(), false),
        }),
      ),
      [],
    ),
    rules: v.optional(
      v.array(
        v.strictObject({
          id: v.pipe(v.string(), v.minLength(1)),
          kind: v.picklist(["host_suffix", "host_exact", "channel_id", "host_regex", "url_regex"]),
          pattern: v.string(),
          proxy: v.string(),
        }),
      ),
      [],
    ),
  }),
  guide: section({
    cache: v.optional(v.boolean(), true),
    refresh_interval_min: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 360),
    // With `cache: false` (docs/guide.md "Refresh"): the least time between two on-demand
    // refreshes of one source, so public epg.xml requests cannot make the gateway flood it.
    min_refresh_sec: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1, "must be at least 1 (seconds)")),
      60,
    ),
    // Ceilings of one guide download (docs/guide.md "Fetching"): bytes on the wire and
    // bytes of XML after decompression.
    max_download_bytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1024)), 536_870_912),
    max_xml_bytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1024)), 4_294_967_296),
    // Public logo repositories tried after the channel's and the guide's own logo, as URL
    // templates with `{snp}` or `{slug}` (docs/guide.md "Logos"); [] turns them off.
    logo_repositories: v.optional(
      v.array(
        v.pipe(
          v.string(),
          v.regex(
            /^https?:\/\/[^\s]*\{(snp|slug)\}/,
            "must be an http(s) URL template with {snp} or {slug}",
          ),
        ),
      ),
      [
        "https://raw.githubusercontent.com/picons/picons/master/build-source/logos/{snp}.default.png",
        "https://raw.githubusercontent.com/picons/picons/master/build-source/logos/{snp}.default.svg",
      ],
    ),
  }),
  // Extensions beyond the specification: each route-adding one is off by default, so the
  // default build is the specification (extensions.md intro). Only the implemented
  // switches are accepted; an unknown one is a config problem, never silently ignored.
  extensions: section({
    ts_output: v.optional(v.boolean(), false),
    // Extensions "HDHomeRun" (full build): each playback key is a virtual tuner device.
    hdhomerun: v.optional(
      section({
        enabled: v.optional(v.boolean(), false),
        friendly_name: v.optional(
          v.pipe(v.string(), v.minLength(1, "must not be empty"), v.maxLength(64)),
          "svc-gateway",
        ),
        tuner_count: v.optional(
          v.pipe(v.number(), v.integer("must be an integer"), v.minValue(1), v.maxValue(255)),
          4,
        ),
        udp_discovery: v.optional(v.boolean(), false),
        discovery_key_id: v.optional(v.pipe(v.string(), v.maxLength(200)), ""),
        // Not in the contract's example: the discovery port, 65001 unless a test moves it.
        udp_port: v.optional(
          v.pipe(v.number(), v.integer("must be an integer"), v.minValue(1), v.maxValue(65535)),
          65001,
        ),
      }),
      {},
    ),
    // Extensions "Xtream Codes output" (full build): player_api.php, get.php, xmltv.php, /live/….
    xtream: v.optional(v.strictObject({ enabled: v.optional(v.boolean(), false) }), {
      enabled: false,
    }),
    // Full build: scheduled M3U provider playlists (docs/m3u-sources.md).
    m3u_sources: v.optional(v.boolean(), false),
  }),
  upstreams: v.optional(
    v.array(
      v.strictObject({
        id: v.pipe(
          v.string(),
          v.regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1-64 characters of A-Z a-z 0-9 . _ -"),
        ),
        base_url: httpUrl("must be an absolute http(s) URL"),
        // Extensions "Connection limits": channels pulled at once from this provider.
        max_connections: v.optional(
          v.pipe(
            v.number(),
            v.integer("must be an integer"),
            v.minValue(1, "must be 1..10000"),
            v.maxValue(10000, "must be 1..10000"),
          ),
        ),
      }),
    ),
    [],
  ),
  channels: v.optional(v.array(channelSchema), []),
});

/** The validated config file, before environment overrides. */
export type ConfigFile = v.InferOutput<typeof configSchema>;
