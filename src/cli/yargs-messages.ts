/**
 * yargs' own failure messages, said as the user typed the command: an unknown flag once and with
 * its dashes (yargs lists both `bogus-flag` and its camelCase twin `bogusFlag`), and a missing
 * positional by name instead of "Not enough non-option arguments: got 0, need at least 1", and a
 * value outside a flag's choices on one line, as the CLI's own checks say it (`--x must be …, got …`).
 * `usageLine` is the first line of the failing command's help (`pmcp exec <file>`). The patterns
 * are yargs' English strings: program.ts fixes its locale.
 */
export function yargsMessage(message: string, argv: readonly string[], usageLine: string): string {
  const unknown = /^Unknown arguments?: (.*)$/.exec(message);
  if (unknown?.[1] !== undefined) {
    const names = unknown[1].split(", ");
    const typed = names.filter((name) => !isCamelTwin(name, names)).map((name) => asTyped(name, argv));
    return `Unknown argument${typed.length === 1 ? "" : "s"}: ${typed.join(", ")}`;
  }
  const missing = /^Not enough non-option arguments: got (\d+), need at least \d+$/.exec(message);
  if (missing?.[1] !== undefined) {
    // "pmcp schema diff <old>": the command is the words between the script's name and the first positional.
    const command = usageLine.split(/ [<[]/)[0]?.split(" ").slice(1).join(" ");
    const absent = (usageLine.match(/<[^>]+>/g) ?? []).slice(Number(missing[1]));
    if (absent.length > 0) return `${command}: missing ${absent.join(" ")}`;
  }
  if (message.startsWith("Invalid values:")) {
    const wrong = [...message.matchAll(/^\s*Argument: (\S+), Given: (.*), Choices: (.*)$/gm)];
    if (wrong.length > 0)
      return wrong.map(([, name, given, choices]) => `${asTyped(name ?? "", argv)} must be one of ${choices}, got ${given}`).join("; ");
  }
  return message;
}

/** yargs-parser adds `bogusFlag` beside a typed `--bogus-flag`. */
function isCamelTwin(name: string, names: readonly string[]): boolean {
  const kebab = name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return kebab !== name && names.includes(kebab);
}

/** `--name` or `-n` when the command line has it as a flag (before `--`), else the word as given. */
function asTyped(name: string, argv: readonly string[]): string {
  const end = argv.indexOf("--");
  for (const token of end === -1 ? argv : argv.slice(0, end)) {
    const long = /^(--(?:no-)?([^=]+))/.exec(token);
    if (long?.[2] === name) return long[1] ?? name;
    if (name.length === 1 && /^-[^-]/.test(token) && token.slice(1).split("=")[0]?.includes(name)) return `-${name}`;
  }
  return name;
}
