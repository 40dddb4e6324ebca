/** A loopback port nothing listens on: the one implementation is `@svc/test-kits/free-port`. */
export { freePort } from "@svc/test-kits/free-port";
