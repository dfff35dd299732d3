/**
 * How the overview and example-question routes read a scope from their query string. Apart from lib/tools/scope.ts,
 * which the browser imports: zod builds an object schema's parser when the module is evaluated, and in the browser that
 * must not happen before zod is told to run without eval (lib/security/zod-jitless.ts, the pages' CSP).
 */
import { z } from "zod";
import { decodeCommaList, MAX_SCOPE_DOCUMENTS } from "./scope";

/** A query string's comma-separated list (`?kbs=a,b&documents=x,y`, each item URI-encoded). */
const commaListParam = (max: number) =>
  z
    .string()
    .max(20_000)
    .optional()
    .transform((raw) => decodeCommaList(raw ?? null)?.slice(0, max) ?? []);

/** A conversation's scope as the overview and example-question routes read it from their query string. */
export const scopeQuerySchema = z.object({ kbs: commaListParam(100), documents: commaListParam(MAX_SCOPE_DOCUMENTS) });
