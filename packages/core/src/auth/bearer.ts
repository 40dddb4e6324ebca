/** Spec "Credential types": a bearer value of this shape is an admin API token. */
export const API_TOKEN_PREFIX = "svc_v1_";

/** The value of an `Authorization: Bearer …` header, or undefined. */
export function bearerFromHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return m?.[1];
}

/**
 * The playback credential of a request: `?token=` takes precedence over the
 * `Authorization` header (spec "Playback" 4).
 */
export function playbackCredential(
  queryToken: string | undefined,
  header: string | undefined,
): string | undefined {
  if (queryToken !== undefined && queryToken !== "") return queryToken;
  return bearerFromHeader(header);
}

export function isApiTokenShape(value: string): boolean {
  return value.startsWith(API_TOKEN_PREFIX);
}
