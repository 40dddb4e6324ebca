import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createSecureContext, type SecureContext } from "node:tls";
import forge from "node-forge";

/**
 * The TLS identity the egress proxy shows ffmpeg inside a `CONNECT` it terminates: a
 * throwaway self-signed certificate made at boot, kept in memory only. ffmpeg 5.1 does not
 * verify server certificates (`-tls_verify` defaults to 0), so it accepts it; the real
 * origin's certificate is verified by the proxy's own TLS client (undici), which is more
 * than ffmpeg did on its own. The key pair comes from node:crypto (native, fast); the
 * X.509 structure and its signature from node-forge, since Node cannot issue certificates
 * and DER is not written by hand here.
 */
export function interceptionContext(): SecureContext {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
  // RFC 5280 4.1.2.2: a positive serial number.
  cert.serialNumber = `01${randomBytes(8).toString("hex")}`;
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 60_000);
  cert.validity.notAfter = new Date(now + 10 * 365 * 86_400_000);
  const name = [{ name: "commonName", value: "svc egress proxy" }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.sign(forge.pki.privateKeyFromPem(privateKey), forge.md.sha256.create());
  return createSecureContext({ key: privateKey, cert: forge.pki.certificateToPem(cert) });
}
