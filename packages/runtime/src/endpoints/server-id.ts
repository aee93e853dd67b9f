import { z } from "zod";

/** A server id: safe as a file name, a module name and a key in `mcpServers`. */
export const ServerIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a server id is letters, digits, '.', '_' and '-', starting with a letter or digit")
  .refine((id) => !id.includes(".."), "a server id may not contain '..'");
