import { createServer } from "node:net";

/**
 * Test support: a loopback port nothing listens on (a listener on port 0 is
 * opened and closed): for a server the test starts next, or as a closed port a
 * connection is refused on. Never part of the gateway.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      s.close(() =>
        typeof address === "object" && address !== null
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}
