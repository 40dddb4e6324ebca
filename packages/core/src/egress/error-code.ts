/**
 * Whether `err` carries `code`: an egress error keeps its code, not always its class, once
 * undici has passed it through its own layers.
 */
export function hasErrorCode(err: unknown, code: string): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === code;
}
