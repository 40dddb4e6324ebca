/**
 * The `If-Match` and `ETag` rules as the routes import them; they live with the services
 * that check revisions, so services never import from the HTTP layer.
 */
export { checkRevision, etag, parseIfMatch } from "../services/if-match.js";
