import { useState } from "preact/hooks";
import { isConflict } from "../../api/api-error.js";
import { api } from "../../api/client.js";
import type { EgressConfig } from "../../api/wire.js";
import { Card } from "../../components/card.js";
import { SelectField, TextField } from "../../components/field.js";
import { ActionNotice } from "../../components/notice.js";
import { Screen } from "../../components/screen.js";
import { useAction } from "../../components/use-action.js";
import { useDocument } from "../../components/use-document.js";
import { ConnectionTest } from "./connection-test.js";
import { ProxyList } from "./proxy-list.js";
import { routeOptions } from "./route-options.js";
import { RuleList } from "./rule-list.js";

/** Egress routing (spec "Egress"): default route, policy, proxy profiles, rules, connection test. */
export function EgressScreen() {
  const [def, setDef] = useState("direct");
  const [policy, setPolicy] = useState("auto");
  const [docker, setDocker] = useState("");
  const action = useAction();
  const { doc: cfg, reload } = useDocument(action, api.egress.get, (r) => {
    setDef(r.default);
    setPolicy(r.playlist_policy);
    setDocker(r.docker_proxy_host);
  });

  /** Every egress write needs the document's revision; a 409 reloads it. */
  const write = (fn: (revision: number) => Promise<unknown>, done: string) =>
    action.run(async () => {
      if (cfg === null) return;
      try {
        await fn(cfg.revision);
      } catch (err) {
        if (isConflict(err)) {
          await reload();
          throw new Error(
            "The egress configuration changed meanwhile; it is reloaded, apply your change again.",
          );
        }
        throw err;
      }
      await reload();
    }, done);

  return (
    <Screen titleId="egress-title" title="Egress">
      <ActionNotice action={action} />
      {cfg ? (
        <>
          <Card
            titleId="egress-main-title"
            title="Routing"
            onSubmit={() => {
              void write(
                (rev) =>
                  api.egress.replace(rev, {
                    default: def,
                    playlist_policy: policy as EgressConfig["playlist_policy"],
                    docker_proxy_host: docker,
                    proxies: cfg.proxies,
                    rules: cfg.rules,
                  }),
                "Egress configuration saved.",
              );
            }}
          >
            <p class="muted">
              Stored configuration from {cfg.source}, revision {cfg.revision}.
            </p>
            <div class="grid-2">
              <SelectField
                label="Default route"
                value={def}
                onChange={setDef}
                options={routeOptions([{ value: "direct", label: "direct" }], cfg.proxies)}
              />
              <SelectField
                label="Playlist policy"
                value={policy}
                onChange={setPolicy}
                options={["rewrite", "passthrough", "auto"]}
              />
              <TextField label="Docker proxy host" value={docker} onInput={setDocker} />
            </div>
            <button type="submit" class="btn btn-primary" disabled={action.busy}>
              Save routing
            </button>
          </Card>
          <ProxyList proxies={cfg.proxies} write={write} />
          <RuleList rules={cfg.rules} proxies={cfg.proxies} write={write} />
          <ConnectionTest proxies={cfg.proxies} />
        </>
      ) : null}
    </Screen>
  );
}
