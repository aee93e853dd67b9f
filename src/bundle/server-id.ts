/** PMCP's default server id: the server's name in lowercase, each run of other characters one `-`. */
export function slugServerId(serverName: string): string {
  const slug = serverName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug === "" ? "server" : slug;
}
