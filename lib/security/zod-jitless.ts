/**
 * zod compiles object parsers with `new Function` when it may. The pages' Content-Security-Policy allows no eval,
 * so in the browser every such try would be a CSP violation (and a report): there zod runs jitless. The server
 * keeps the faster compiled parsers.
 */
import { z } from "zod";

if (typeof window !== "undefined") z.config({ jitless: true });
