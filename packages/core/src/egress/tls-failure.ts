/** Error codes of a failed TLS handshake (Node's `tls` module and OpenSSL's verify results). */
const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT)/;

export function isTlsFailureCode(code: unknown): code is string {
  return typeof code === "string" && TLS_CODE.test(code);
}
