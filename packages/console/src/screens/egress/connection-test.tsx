import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { EgressProxy, EgressTest, EgressTestAnswer } from "../../api/wire.js";
import { Card } from "../../components/card.js";
import { Detail } from "../../components/detail-list.js";
import { SelectField, TextField } from "../../components/field.js";
import { ActionNotice } from "../../components/notice.js";
import { useAction } from "../../components/use-action.js";
import { routeOptions } from "./route-options.js";

/** What each failure outcome of the connection test means (spec "Egress"). */
const OUTCOMES: Record<string, string> = {
  success: "The target answered through this route.",
  slow: "Reachable, but slower than egress.min_test_kbps.",
  blocked: "The egress guard refused the destination (not a public address, or not allowed).",
  dns: "The host name did not resolve.",
  timeout: "No answer within the egress timeouts.",
  tls: "The TLS handshake failed (certificate or protocol).",
  proxy: "The proxy could not be reached or refused the tunnel.",
  proxy_auth: "The proxy rejected the credentials.",
  http_error: "The target answered with an HTTP error status.",
  network: "The connection failed (refused or reset).",
};

type Target = NonNullable<EgressTest["target"]>;

/** What the test can reach: the spec's built-in probe, a channel's source, or any URL. */
const TARGETS: readonly { value: Target; label: string }[] = [
  { value: "public", label: "built-in public HTTPS probe" },
  { value: "source", label: "a channel source URL" },
  { value: "custom", label: "a custom URL" },
];

export function ConnectionTest({ proxies }: { proxies: EgressProxy[] }) {
  const [target, setTarget] = useState<Target>("public");
  const [url, setUrl] = useState("");
  const [proxyId, setProxyId] = useState("");
  const [result, setResult] = useState<EgressTestAnswer | null>(null);
  const action = useAction();
  return (
    <Card
      titleId="egress-test-title"
      title="Connection test"
      onSubmit={async () => {
        setResult(null);
        const r = await action.run(() =>
          api.egress.test({
            target,
            ...(target === "public" ? {} : { url }),
            ...(proxyId === "" ? {} : { proxy_id: proxyId }),
          }),
        );
        if (r) setResult(r);
      }}
    >
      <div class="grid-2">
        <SelectField label="Target" value={target} onChange={setTarget} options={TARGETS} />
        {target !== "public" ? (
          <TextField label="Test URL" type="url" value={url} onInput={setUrl} />
        ) : null}
        <SelectField
          label="Through"
          value={proxyId}
          onChange={setProxyId}
          options={routeOptions(
            [
              { value: "", label: "the configured route" },
              { value: "direct", label: "direct" },
            ],
            proxies,
          )}
        />
      </div>
      <button type="submit" class="btn btn-primary" disabled={action.busy}>
        Run test
      </button>
      <ActionNotice action={action} busyText="Testing the connection…" />
      {result ? (
        <dl class="kv" data-testid="egress-test-result">
          <Detail term="Outcome">
            <span class={result.ok ? "badge badge-ok" : "badge badge-bad"}>{result.outcome}</span>{" "}
            {OUTCOMES[result.outcome] ?? ""}
          </Detail>
          <Detail term="Error" wrap>
            {result.error}
          </Detail>
          <Detail term="Route">{result.via_proxy ? `proxy ${result.proxy_id}` : "direct"}</Detail>
          <Detail term="Status">{result.status || null}</Detail>
          <Detail term="Time to first byte">
            {result.ttfb_ms != null && `${result.ttfb_ms} ms`}
          </Detail>
          <Detail term="Throughput">
            {result.throughput_kbps != null && `${result.throughput_kbps} kbit/s`}
          </Detail>
          <Detail term="Duration">{`${result.dur_ms} ms`}</Detail>
        </dl>
      ) : null}
    </Card>
  );
}
