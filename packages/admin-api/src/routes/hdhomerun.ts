import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { GatewayError } from "@svc/core/errors";
import { defineRoutes, routesOf } from "@svc/core/route-table";
import type { Context, Hono } from "hono";
import { type AdminContext, requestBase } from "../context/admin-context.js";
import type { AdminEnv } from "../context/env.js";
import { PLAYBACK_KEY } from "../http/route-access.js";
import { escapeXml } from "../services/guide/xml-escape.js";
import { deviceIdOf } from "../services/hdhomerun/device-id.js";
import { type TunerChannel, tunerLineup } from "../services/hdhomerun/tuner-lineup.js";
import { keyChannels, type PlaybackKeyRecord } from "../services/playback-keys/key-store.js";
import { hdhrDiscover, hdhrLineup, hdhrLineupStatus } from "./answers.js";
import { keyGrant } from "./key-playback.js";

/** What the device says it is: a tuner without transcoding (no `hdtc` in the model). */
export const HDHR_MODEL = "HDHR5-4US";
const HDHR_FIRMWARE = "hdhomerun5_atsc";
const HDHR_FIRMWARE_VERSION = "20240101";
const tag = "hdhomerun";

/** Extensions "HDHomeRun": a playback key is a virtual tuner device under `/p/{token}/hdhr`. */
export const hdhomerunRoutes = defineRoutes("/p/:token/hdhr", {
  discover: {
    method: "GET",
    path: "/discover.json",
    access: PLAYBACK_KEY,
    summary: "HDHomeRun device of a playback key (extension hdhomerun)",
    tag,
    success: [200, "`{FriendlyName, Manufacturer, ModelNumber, …, TunerCount}`", hdhrDiscover],
    extension: "hdhomerun",
  },
  lineup: {
    method: "GET",
    path: "/lineup.json",
    access: PLAYBACK_KEY,
    summary: "HDHomeRun channel lineup (extension hdhomerun)",
    tag,
    success: [200, "`[{GuideNumber, GuideName, URL, HD}]`", hdhrLineup],
    extension: "hdhomerun",
  },
  lineupStatus: {
    method: "GET",
    path: "/lineup_status.json",
    access: PLAYBACK_KEY,
    summary: "HDHomeRun scan status (extension hdhomerun)",
    tag,
    success: [200, "`{ScanInProgress, ScanPossible, Source, SourceList}`", hdhrLineupStatus],
    extension: "hdhomerun",
  },
  lineupPost: {
    method: "POST",
    path: "/lineup.post",
    access: PLAYBACK_KEY,
    summary: "HDHomeRun channel scan: a no-op (extension hdhomerun)",
    tag,
    success: [200, "No body", null],
    extension: "hdhomerun",
  },
  device: {
    method: "GET",
    path: "/device.xml",
    access: PLAYBACK_KEY,
    summary: "UPnP device description (extension hdhomerun)",
    tag,
    success: [200, "UPnP device description", "application/xml"],
    extension: "hdhomerun",
  },
  guide: {
    method: "GET",
    path: "/guide.xml",
    access: PLAYBACK_KEY,
    summary: "XMLTV of the key's channels, ids = GuideNumber (extension hdhomerun)",
    tag,
    success: [200, "XMLTV", "application/xml"],
    extension: "hdhomerun",
  },
  tune: {
    method: "GET",
    path: "/auto/:channel",
    access: PLAYBACK_KEY,
    summary: "MPEG-TS of channel v{GuideNumber} (extension hdhomerun)",
    tag,
    success: [200, "MPEG-TS stream", "video/mp2t"],
    errors: ["not_found", "unavailable", "upstream_error", "not_ready"],
    extension: "hdhomerun",
  },
});

/** The device a key is, as discover.json and the UDP responder describe it. */
export interface TunerDevice {
  readonly deviceId: string;
  readonly tunerCount: number;
  readonly baseUrl: string;
}

/** `TunerCount`: the key's `max_connections`, else `extensions.hdhomerun.tuner_count`. */
export function tunerCountOf(ctx: AdminContext, key: PlaybackKeyRecord): number {
  return key.maxConnections ?? ctx.config.extensions.hdhomerun.tuner_count;
}

/** An opaque `DeviceAuth`, stable per key, derived from its id (never from its secret). */
const deviceAuthOf = (keyId: string) =>
  createHash("sha256").update(`hdhomerun-auth\0${keyId}`).digest("base64url").slice(0, 24);

/** A UUID (RFC 4122 form, version 5 bits) for the UPnP `UDN`, stable per key. */
function udnOf(keyId: string): string {
  const h = createHash("sha1").update(`hdhomerun-udn\0${keyId}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * `/p/{token}/hdhr/…` (extensions "HDHomeRun"): the playback key checked by the key gate
 * is a tuner device; its streams are `stream.ts` of the channel through the playback
 * stack, each holding one of the key's tuners (its connection seats).
 */
export function createHdhomerunRoutes(ctx: AdminContext): Hono<AdminEnv> {
  const settings = ctx.config.extensions.hdhomerun;
  const baseOf = (c: Context<AdminEnv>) => `${requestBase(ctx, c)}/p/${c.req.param("token")}/hdhr`;
  const lineupOf = (key: PlaybackKeyRecord): TunerChannel[] =>
    tunerLineup(ctx.channels.list(), keyChannels(key));

  return routesOf(
    hdhomerunRoutes,
    {
      discover: (c) => {
        const key = c.get("playbackKey");
        const base = baseOf(c);
        // Jellyfin's DiscoverResponse: every field a string but TunerCount (an integer).
        return c.json({
          FriendlyName: settings.friendly_name,
          Manufacturer: "Silicondust",
          ModelNumber: HDHR_MODEL,
          FirmwareName: HDHR_FIRMWARE,
          FirmwareVersion: HDHR_FIRMWARE_VERSION,
          DeviceID: deviceIdOf(key.id),
          DeviceAuth: deviceAuthOf(key.id),
          BaseURL: base,
          LineupURL: `${base}/lineup.json`,
          TunerCount: tunerCountOf(ctx, key),
        });
      },

      lineup: (c) => {
        const base = baseOf(c);
        // GuideNumber and GuideName strings, HD a number (as devices send it; Jellyfin reads
        // it as a boolean through its number converter).
        return c.json(
          lineupOf(c.get("playbackKey")).map((t) => ({
            GuideNumber: t.guideNumber,
            GuideName: t.channel.title,
            URL: `${base}/auto/v${t.guideNumber}`,
            HD: 1,
          })),
        );
      },

      lineupStatus: (c) =>
        c.json({ ScanInProgress: 0, ScanPossible: 1, Source: "Cable", SourceList: ["Cable"] }),

      lineupPost: (c) => c.body(null, 200),

      device: (c) => {
        const key = c.get("playbackKey");
        const base = baseOf(c);
        const xml = [
          '<?xml version="1.0" encoding="UTF-8"?>',
          '<root xmlns="urn:schemas-upnp-org:device-1-0">',
          "<specVersion><major>1</major><minor>0</minor></specVersion>",
          `<URLBase>${escapeXml(base)}</URLBase>`,
          "<device>",
          "<deviceType>urn:schemas-upnp-org:device:MediaServer:1</deviceType>",
          `<friendlyName>${escapeXml(settings.friendly_name)}</friendlyName>`,
          "<manufacturer>Silicondust</manufacturer>",
          `<modelName>${HDHR_MODEL}</modelName>`,
          `<modelNumber>${HDHR_MODEL}</modelNumber>`,
          `<serialNumber>${deviceIdOf(key.id)}</serialNumber>`,
          `<UDN>uuid:${udnOf(key.id)}</UDN>`,
          "</device>",
          "</root>",
          "",
        ].join("\n");
        return c.body(xml, 200, { "Content-Type": "application/xml; charset=utf-8" });
      },

      guide: async (c) => {
        const lineup = lineupOf(c.get("playbackKey"));
        const numbers = new Map(lineup.map((t) => [t.channel.id, t.guideNumber]));
        const out = await ctx.guide.epg(requestBase(ctx, c), {
          channels: lineup.map((t) => t.channel),
          xmltvId: (ch) => numbers.get(ch.id) ?? ch.id,
        });
        const xml = Readable.from(out.body, { objectMode: false, highWaterMark: 1 });
        return c.body(Readable.toWeb(xml) as ReadableStream, 200, {
          "Content-Type": "application/xml; charset=utf-8",
          "Cache-Control": "no-cache",
        });
      },

      tune: async (c) => {
        const key = c.get("playbackKey");
        const m = /^v(\d{1,9}(?:\.\d{1,9})?)$/.exec(c.req.param("channel"));
        const tuned = m === null ? undefined : lineupOf(key).find((t) => t.guideNumber === m[1]);
        if (tuned === undefined) throw new GatewayError("not_found", "no such channel number");
        const head = { "Content-Type": "video/mp2t", "Cache-Control": "no-store" };
        // Jellyfin probes with HEAD: the headers, without opening the source or a tuner.
        if (c.req.method === "HEAD") return c.body(null, 200, head);
        const door = ctx.streamDoor;
        if (door === undefined) throw new GatewayError("not_ready", "no playback stack");
        // The key's tuners are its connection seats (`TunerCount`).
        const grant = keyGrant(key, `/p/${c.req.param("token")}/play`, tunerCountOf(ctx, key));
        try {
          return await door(c as unknown as Parameters<typeof door>[0], tuned.channel.id, grant);
        } catch (err) {
          // SiliconDust's "all tuners in use": what media servers recognise as busy.
          if (err instanceof GatewayError && err.code === "too_many_requests")
            throw new GatewayError("unavailable", "all tuners are in use", {
              headers: { "X-HDHomeRun-Error": "805" },
            });
          throw err;
        }
      },
    },
    ctx.config.extensions,
  );
}
