/**
 * How routes and tools check a scope: picked document ids, and the overview and example-question routes' query
 * string. Apart from lib/tools/scope.ts, which every page imports: zod would be 127 KB of every page's script, and it
 * builds an object schema's parser when the module is evaluated, which in the browser must not happen before zod is
 * told to run without eval (lib/security/zod-jitless.ts, the pages' CSP).
 */
import { z } from "zod";
import { decodeCommaList, MAX_SCOPE_DOCUMENTS } from "./scope";

export const documentIdsSchema = z
  .array(z.string().min(1).max(200), { error: "documents must be a list of document ids" })
  .max(MAX_SCOPE_DOCUMENTS, `documents: at most ${MAX_SCOPE_DOCUMENTS} document ids`);

/** A query string's comma-separated list (`?kbs=a,b&documents=x,y`, each item URI-encoded). */
const commaListParam = (max: number) =>
  z
    .string()
    .max(20_000)
    .optional()
    .transform((raw) => decodeCommaList(raw ?? null)?.slice(0, max) ?? []);

/** A conversation's scope as the overview and example-question routes read it from their query string. */
export const scopeQuerySchema = z.object({ kbs: commaListParam(100), documents: commaListParam(MAX_SCOPE_DOCUMENTS) });
