/** Query parameters that commonly carry credentials; they never reach a bundle. */
const SECRET_PARAM = /token|key|secret|passw|auth|sig|credential|session|code/i;

/** The URL as recorded in a bundle: no userinfo, no credential-like query parameters, no fragment. */
export function redactUrl(url: URL): string {
  const clean = new URL(url.href);
  clean.username = "";
  clean.password = "";
  clean.hash = "";
  for (const name of [...clean.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) clean.searchParams.delete(name);
  }
  return clean.href;
}
