import type { AnswerOf, BodyOf } from "./request.js";

/**
 * The wire shapes the console uses, every one read out of the types generated from
 * the gateway's OpenAPI document (scripts/generate-api-types.mjs): request bodies
 * from the valibot schemas the routes validate with (`BodyOf`), answers from the
 * schemas the routes declare their answers with (`AnswerOf`). Nothing here is
 * written by hand, so the console cannot drift from the server: a field the server
 * renames or drops fails the console's type check.
 */

// ---- Request bodies

export type ChannelWrite = BodyOf<"put", "/v1/admin/channels/{id}">;
export type EgressMode = NonNullable<ChannelWrite["egress"]>["mode"];
export type Scope = NonNullable<BodyOf<"post", "/v1/admin/api-tokens">["scopes"]>[number];
export type EgressRule = BodyOf<"post", "/v1/admin/egress/rules">;
export type RuleKind = EgressRule["kind"];
export type SettingsWrite = BodyOf<"put", "/v1/admin/settings">;
export type EgressProxyWrite = BodyOf<"post", "/v1/admin/egress/proxies">;
export type EgressTest = BodyOf<"post", "/v1/admin/egress/test">;
export type GuideSourceWrite = BodyOf<"post", "/v1/admin/epg/sources">;
export type M3uSourceWrite = BodyOf<"put", "/v1/admin/m3u-sources/{id}">;
/** How the import treats entries sharing a `tvg-id` (docs/m3u.md). */
export type DuplicatesMode = NonNullable<BodyOf<"post", "/v1/admin/import/m3u">["duplicates"]>;

// ---- Answers

export type LoginAnswer = AnswerOf<"post", "/v1/auth/login">;
export type Me = AnswerOf<"get", "/v1/me">;
export type Status = AnswerOf<"get", "/v1/status">;
export type RuntimeSession = Status["sessions"][number];
export type Upstream = AnswerOf<"get", "/v1/admin/upstreams">["upstreams"][number];

export type ChannelDetail = AnswerOf<"get", "/v1/admin/channels/{id}">;
/** A stored channel as the admin API shows it (sensitive values blank). */
export type Channel = ChannelDetail["channel"];
/** One of a channel's `fallback_sources` as the API returns it (sensitive values blank). */
export type FallbackSourceWire = NonNullable<Channel["fallback_sources"]>[number];
export type EgressBinding = ChannelDetail["egress_binding"];
/** A channel write's answer; `dropped_secrets` when secrets stayed behind with an old origin. */
export type ChannelWriteAnswer = AnswerOf<"put", "/v1/admin/channels/{id}">;
export type BulkAnswer = AnswerOf<"post", "/v1/admin/channels/enable-all">;
export type ReorderAnswer = AnswerOf<"put", "/v1/admin/channels/reorder">;
export type ProbeAnswer = AnswerOf<"post", "/v1/admin/channels/{id}/probe">;

export type ApiToken = AnswerOf<"get", "/v1/admin/api-tokens">["tokens"][number];
export type IssuedApiToken = AnswerOf<"post", "/v1/admin/api-tokens">;
export type AuditRecord = AnswerOf<"get", "/v1/admin/api-token-logs">["logs"][number];

export type PlaybackKey = AnswerOf<"get", "/v1/admin/access-tokens">["access_tokens"][number];
export type IssuedPlaybackKey = AnswerOf<"post", "/v1/admin/access-tokens">;
/** `POST /v1/admin/access-tokens/{id}/xtream-password` (extension xtream). */
export type IssuedXtreamPassword = AnswerOf<"post", "/v1/admin/access-tokens/{id}/xtream-password">;
export type AccessRecord = AnswerOf<"get", "/v1/admin/access-logs">["access_logs"][number];

export type Settings = AnswerOf<"get", "/v1/admin/settings">;

export type GuideSourceList = AnswerOf<"get", "/v1/admin/epg/sources">;
export type GuideSourceEntry = GuideSourceList["sources"][number];
export type GuideSource = GuideSourceEntry["source"];
export type GuideStatus = GuideSourceList["statuses"][number];
export type GuideMatch = AnswerOf<"get", "/v1/admin/epg/matches">["matches"][number];
export type GuideCandidate = GuideMatch["candidates"][number];
/** Why a guide channel was matched or offered (docs/guide.md "Matching"). */
export type GuideMatchReason = GuideCandidate["reason"];

/** Extension "M3U provider sources" (docs/m3u-sources.md). */
export type M3uSource = AnswerOf<"get", "/v1/admin/m3u-sources/{id}">["source"];
export type M3uSourceStatus = AnswerOf<"post", "/v1/admin/m3u-sources/{id}/refresh">["status"];

export type EgressConfig = AnswerOf<"get", "/v1/admin/egress">;
export type EgressProxy = EgressConfig["proxies"][number];
export type EgressTestAnswer = AnswerOf<"post", "/v1/admin/egress/test">;

export type ImportAnswer = AnswerOf<"post", "/v1/admin/import/m3u">;
export type ImportEntry = ImportAnswer["entries"][number];
