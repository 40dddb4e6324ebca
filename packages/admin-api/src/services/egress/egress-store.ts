import type { GatewayConfig } from "@svc/core/config";
import { type EgressRoutes, routingFromConfig } from "@svc/core/egress";
import { eq } from "drizzle-orm";
import type { StateDb } from "../../db/client.js";
import { egressConfig } from "../../db/schema/index.js";
import { routingOf, type StoredEgressDocument } from "./egress-document.js";

export type EgressSource = "config" | "api";

export interface EgressState {
  readonly document: StoredEgressDocument;
  readonly source: EgressSource;
  readonly revision: number;
  /** Epoch milliseconds. */
  readonly updatedAt: number;
}

/** The stored egress document, mirrored in memory and installed into the egress routes. */
export interface EgressStore {
  current(): EgressState;
  /** Commits a validated document as the next revision and routes with it from then on. */
  commit(document: StoredEgressDocument): EgressState;
}

/**
 * Loads the egress document; on the first start (no row yet) the config file's `egress`
 * section seeds it with `source: "config"`. Later starts keep the stored document: the
 * config file's routes then no longer apply (docs/egress.md "Where the document lives").
 */
export function createEgressStore(
  db: StateDb,
  config: GatewayConfig,
  routes: EgressRoutes,
): EgressStore {
  let row = db.select().from(egressConfig).where(eq(egressConfig.id, 1)).get();
  if (row === undefined) {
    const seed = routingFromConfig(config);
    row = {
      id: 1,
      document: {
        default: seed.default,
        playlist_policy: config.egress.playlist_policy,
        docker_proxy_host: seed.docker_proxy_host,
        proxies: seed.proxies.map((p) => ({ ...p, revision: 1 })),
        rules: seed.rules,
      },
      source: "config",
      revision: 1,
      updatedAt: Date.now(),
    };
    db.insert(egressConfig).values(row).run();
  }
  const toState = (r: typeof row): EgressState => ({
    document: r.document,
    source: r.source === "api" ? "api" : "config",
    revision: r.revision,
    updatedAt: r.updatedAt,
  });
  let state = toState(row);
  routes.update(routingOf(state.document));
  return {
    current: () => state,
    commit(document) {
      const next = {
        id: 1,
        document,
        source: "api",
        revision: state.revision + 1,
        updatedAt: Date.now(),
      };
      db.update(egressConfig).set(next).where(eq(egressConfig.id, 1)).run();
      state = toState(next);
      routes.update(routingOf(document));
      return state;
    },
  };
}
