/** JSON request helper over the global fetch (tests only ever talk to loopback). */
export async function requestJson(
  url: string,
  init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined && headers["content-type"] === undefined)
    headers["content-type"] = "application/json";
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    body:
      init.body === undefined
        ? undefined
        : typeof init.body === "string"
          ? init.body
          : JSON.stringify(init.body),
    redirect: "manual",
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Logs in and returns the session token. */
export async function login(base: string, username: string, password: string): Promise<string> {
  const r = await requestJson(`${base}/v1/auth/login`, { body: { username, password } });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
  return r.body.token as string;
}
