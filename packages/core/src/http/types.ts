import type { HttpBindings } from "@hono/node-server";
import type { Logger } from "pino";

/** Which binary is running; decides the header set and the request id. */
export type Build = "full" | "lite";

/** Hono environment shared by every route of both builds. */
export interface AppEnv {
  Bindings: HttpBindings;
  Variables: {
    requestId: string;
    log: Logger;
    /** The body ceiling of this request (`bodyCeiling`), enforced by `readRequestBody`. */
    bodyLimit: number;
  };
}
