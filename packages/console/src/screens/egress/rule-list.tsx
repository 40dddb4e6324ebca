import { useState } from "preact/hooks";
import { api } from "../../api/client.js";
import type { EgressProxy, EgressRule, RuleKind } from "../../api/wire.js";
import { Card } from "../../components/card.js";
import { SelectField, TextField } from "../../components/field.js";
import { routeOptions } from "./route-options.js";

const KINDS: RuleKind[] = ["host_suffix", "host_exact", "channel_id", "host_regex", "url_regex"];

/** Routing rules: which requests go through which profile (regexes validated by the API). */
export function RuleList(p: {
  rules: EgressRule[];
  proxies: EgressProxy[];
  write: (fn: (revision: number) => Promise<unknown>, done: string) => Promise<unknown>;
}) {
  const [kind, setKind] = useState<RuleKind>("host_suffix");
  const [value, setValue] = useState("");
  const [proxy, setProxy] = useState("direct");
  return (
    <Card titleId="rules-title" title="Routing rules">
      {p.rules.length === 0 ? (
        <p>No rule: every request takes the default route.</p>
      ) : (
        <ul class="plain-list">
          {p.rules.map((r, i) => (
            <li key={r.id ?? i}>
              <span class="mono">
                {r.kind} {r.pattern} → {r.proxy}
              </span>
              {r.id ? (
                <button
                  type="button"
                  class="btn btn-small btn-danger"
                  aria-label={`Delete rule ${r.id}`}
                  onClick={() =>
                    p.write((rev) => api.egress.removeRule(rev, r.id!), "Rule deleted.")
                  }
                >
                  Delete
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void p.write(
            (rev) => api.egress.createRule(rev, { kind, pattern: value, proxy }),
            "Rule added.",
          );
        }}
      >
        <div class="grid-2">
          <SelectField
            label="Rule kind"
            value={kind}
            onChange={(v) => setKind(v as RuleKind)}
            options={KINDS}
          />
          <TextField
            label="Rule pattern"
            value={value}
            onInput={setValue}
            hint="Host suffix, exact host, channel id or RE2 regex"
          />
          <SelectField
            label="Rule route"
            value={proxy}
            onChange={setProxy}
            options={routeOptions([{ value: "direct", label: "direct" }], p.proxies)}
          />
        </div>
        <button type="submit" class="btn">
          Add rule
        </button>
      </form>
    </Card>
  );
}
