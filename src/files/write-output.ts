import type { FileToWrite, WriteOptions } from "@pmcp-codegen/runtime/internal/files";
import { PmcpError } from "../errors.js";
import { ENDING_SIGNALS, raiseUnlessWatched } from "../signals.js";
import { systemReason } from "./system-reason.js";

/**
 * Writes a command's output files all or nothing (writeFilesAtomically), naming `flag`, the
 * option or setting that chose the path, in any failure. A signal meanwhile removes the staged
 * temp files and then ends the process as the signal would have; the renames themselves are
 * never interrupted.
 */
export async function writeOutput(flag: string, files: readonly FileToWrite[], options: WriteOptions = {}): Promise<void> {
  const { discardStagedFiles, OutputPathError, writeFilesAtomically } = await import("@pmcp-codegen/runtime/internal/files");
  let interrupted: NodeJS.Signals | undefined;
  let backstop: NodeJS.Timeout | undefined;
  const endNow = () => {
    for (const name of ENDING_SIGNALS) process.off(name, end);
    if (interrupted !== undefined) raiseUnlessWatched(interrupted);
  };
  const end = (signal: NodeJS.Signals) => {
    interrupted ??= signal;
    // Writes still in flight would create their temp files after this removal: the write fails
    // on its own once they settle and removes them, then `finally` ends the process. A write that
    // never settles (a FIFO nobody reads) must not keep the process alive.
    discardStagedFiles();
    backstop ??= setTimeout(endNow, 2_000);
  };
  for (const name of ENDING_SIGNALS) process.on(name, end);
  try {
    await writeFilesAtomically(files, options);
  } catch (error) {
    if (error instanceof OutputPathError) throw new PmcpError("INVALID_ARGUMENT", `${flag} ${error.path}: ${error.reason}`);
    const path = (error as NodeJS.ErrnoException).path;
    throw new PmcpError(
      "IO_FAILED",
      `cannot write ${path ?? files.map((file) => file.path).join(", ")} (${flag}): ${systemReason(error)}`,
      {
        cause: error,
      },
    );
  } finally {
    clearTimeout(backstop);
    endNow();
  }
}
