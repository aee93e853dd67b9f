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

/**
 * The URL as the user wrote it (before `${VAR}` interpolation), redacted: what a bundle
 * records, so a secret that came from the environment never reaches it.
 */
export function redactWrittenUrl(written: string, interpolated: URL): string {
  let parsed: URL;
  try {
    parsed = new URL(written);
  } catch {
    // The whole URL is a variable: its name is all there is to record.
    return written.includes("${") ? written : redactUrl(interpolated);
  }
  return redactUrl(parsed).replace(/\$%7B([^%]*)%7D/g, "${$1}");
}
