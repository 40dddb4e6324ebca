/** Entry `@svc/admin-api/xtream`: the Xtream Codes output (extensions.md), composed by the full app. */

export { createXtreamRoutes, xtreamPlayRoutes, xtreamRoutes } from "./xtream.js";
export { createXtreamAccess, type XtreamAccess } from "./xtream-access.js";
