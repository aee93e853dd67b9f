import type { z } from "zod";

/** Issues listed before the rest are only counted: the first few say what is wrong, a thousand say nothing more. */
export const DEFAULT_MAX_ISSUES = 3;

export interface FormatIssuesOptions {
  /** Issues listed one per line; the rest become "and K more" (default 3). */
  max?: number;
  /** Names a path better than the JSON path does, e.g. `server "x" tool "y"` for a bundle's array indices. */
  describePath?: (path: readonly PropertyKey[]) => string;
}

/**
 * The one way zod issues become text: a line `<where> at <JSON path>: <message>` per issue
 * (`<where>: <message>` at the root), up to `max`, then `<where>: and K more`.
 */
export function formatIssues(where: string, issues: readonly z.core.$ZodIssue[], options: FormatIssuesOptions = {}): string {
  const max = options.max ?? DEFAULT_MAX_ISSUES;
  const describe = options.describePath ?? formatJsonPath;
  if (issues.length === 0) return `${where}: invalid`;
  const lines = issues.slice(0, max).map((issue) => {
    const at = issue.path.length === 0 ? "" : ` at ${describe(issue.path)}`;
    return `${where}${at}: ${issue.message}`;
  });
  if (issues.length > max) lines.push(`${where}: and ${issues.length - max} more`);
  return lines.join("\n");
}

/** `servers.a.args[0]`, with keys that are not identifiers quoted: `mcpServers["my server"].url`. */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) text += text === "" ? key : `.${key}`;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text;
}
