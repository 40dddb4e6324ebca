import type { GatewayConfig } from "@svc/core/config";
import { type EgressRoutes, routingFromConfig } from "@svc/core/egress";
import { GatewayError } from "@svc/core/errors";
import type { EgressRepository, EgressRow } from "../../storage/single-row-repository.js";
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
  /**
   * Commits a validated document as the next revision and routes with it from then on.
   * Another instance's write since the current document was read is a 409, and the
   * document is reloaded.
   */
  commit(document: StoredEgressDocument): Promise<EgressState>;
  /** Replaces the document in memory and in the routes with the stored one (idempotent). */
  reload(): Promise<void>;
}

const toState = (r: EgressRow): EgressState => ({
  document: r.document,
  source: r.source === "api" ? "api" : "config",
  revision: r.revision,
  updatedAt: r.updatedAt,
});

/**
 * Loads the egress document; on the first start (no row yet) the config file's `egress`
 * section seeds it with `source: "config"`. Later starts keep the stored document: the
 * config file's routes then no longer apply (docs/egress.md "Where the document lives").
 */
export async function createEgressStore(
  repository: EgressRepository,
  config: GatewayConfig,
  routes: EgressRoutes,
): Promise<EgressStore> {
  const seed = routingFromConfig(config);
  let state = toState(
    await repository.loadOrCreate({
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
    }),
  );
  routes.update(routingOf(state.document));
  const install = (row: EgressRow) => {
    state = toState(row);
    routes.update(routingOf(state.document));
  };
  const reload = async () => {
    const row = await repository.load();
    if (row !== undefined) install(row);
  };
  return {
    current: () => state,
    async commit(document) {
      const next: EgressRow = {
        id: 1,
        document,
        source: "api",
        revision: state.revision + 1,
        updatedAt: Date.now(),
      };
      try {
        await repository.save(next);
      } catch (err) {
        // The 409 stands even when the reload fails; the change feed reloads later.
        if (err instanceof GatewayError && err.code === "conflict") await reload().catch(() => {});
        throw err;
      }
      install(next);
      return state;
    },
    reload,
  };
}
