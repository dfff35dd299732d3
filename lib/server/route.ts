/**
 * The one guarded way into every route handler of the web API: the access check, path-parameter and
 * JSON-body validation, the ready store and registry, and error → HTTP mapping (lib/http/errors.ts).
 * A handler only does its own work and returns a Response or a JSON-able value.
 */
import type { z } from "zod";
import { type AuditFields, audit } from "@/lib/audit/record";
import { isRecordedRefusal } from "@/lib/audit/refusal";
import type { AuditEvent } from "@/lib/audit/types";
import { ssoAccessAllowed } from "@/lib/auth/accounts/sso-recheck";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { resolveAuthSettings } from "@/lib/auth/config";
import { callerOf } from "@/lib/auth/peer";
import { authenticateApp, checkOrigin, type Principal, requireAdmin } from "@/lib/auth/principal";
import { readJsonBody } from "@/lib/http/body";
import { errorResponse, NO_STORE } from "@/lib/http/errors";
import { getRegistry, type Registry } from "@/lib/kb";
import { countError, observeRequest } from "@/lib/metrics";
import { getStore, type Store } from "@/lib/store";
import { AppError, errorCodeOfStatus } from "@/lib/types";
import { getReadyStore } from "./startup";

interface RouteContext<P> {
  req: Request;
  params: P;
  /** Who is asking (lib/auth/principal.ts); a "public" route gets none (see optionalPrincipal). */
  principal: Principal;
  /** Records an action in the audit log with this request's actor and address. */
  audit(action: AuditEvent["action"], fields?: AuditFields): Promise<void>;
  /** The store once start-up indexing is done (or has waited its time). */
  store(): Promise<Store>;
  registry(): Promise<Registry>;
  /** The request body as JSON (application/json, size-limited, lib/http/body.ts), validated (400 with a readable message otherwise). */
  body<T>(schema: z.ZodType<T>): Promise<T>;
}

export interface RouteOptions<P> {
  /**
   * "app": anyone who passes the access check (lib/auth/principal.ts); "admin": admins only; "open": only the
   * origin rule (signing in, joining); "public": no check (health). Open and public handlers have no `principal`.
   */
  access?: "app" | "admin" | "open" | "public";
  /** Path parameters; a failure answers 404 with `notFound` when given, else 400 with the schema's message. */
  params?: z.ZodType<P>;
  notFound?: string;
  /** Status of a plain (non-Response) result. */
  status?: number;
}

type Handler<P> = (ctx: RouteContext<P>) => Promise<Response | object>;
type NextCtx = { params: Promise<Record<string, string | string[]>> };

export function route<P = Record<string, never>>(opts: RouteOptions<P>, handler: Handler<P>) {
  return async (req: Request, next?: NextCtx): Promise<Response> => {
    const t0 = performance.now();
    const raw = (await next?.params) ?? {};
    const response = await run(req, raw);
    observeRequest(routePattern(new URL(req.url).pathname, raw), response.status, performance.now() - t0, req.method);
    if (response.status >= 400) countError(errorCodeOfStatus(response.status));
    return response;
  };

  async function run(req: Request, raw: Record<string, string | string[]>): Promise<Response> {
    let principal: Principal | null = null;
    try {
      const signedIn = opts.access !== "public" && opts.access !== "open";
      if (opts.access === "open") {
        const denied = checkOrigin(req);
        if (denied) throw denied;
      }
      principal = signedIn ? await authenticateApp(req, accessDeps) : null;
      if (opts.access === "admin") requireAdmin(principal!);
      let params = {} as P;
      if (opts.params) {
        const parsed = opts.params.safeParse(raw);
        if (!parsed.success) throw opts.notFound ? new AppError("not_found", opts.notFound) : parsed.error;
        params = parsed.data;
      }
      let store: Promise<Store> | undefined;
      const ctx: RouteContext<P> = {
        req,
        params,
        get principal(): Principal {
          if (!principal) throw new Error("An open or public route has no principal: use optionalPrincipal(req).");
          return principal;
        },
        audit: (action, fields = {}) => audit(principal, action, fields),
        store: () => (store ??= getReadyStore()),
        registry: async () => getRegistry(await ctx.store()),
        body: async (schema) => schema.parse(await readJsonBody(req)),
      };
      const result = await handler(ctx);
      return result instanceof Response ? result : Response.json(result, { status: opts.status ?? 200, headers: NO_STORE });
    } catch (err) {
      const response = errorResponse(err);
      if (isRecordedRefusal(req, response.status)) await recordRefusal(req, principal, err, response.status, kbNamed(req, raw, err));
      return response;
    }
  }
}

/** The knowledge base a refused request named: the one the access check refused, else the path's /api/kbs/<name>. */
function kbNamed(req: Request, raw: Record<string, string | string[]>, err: unknown): string | null {
  if (err instanceof AppError && err.kb) return err.kb;
  return new URL(req.url).pathname.startsWith("/api/kbs/") && typeof raw.name === "string" ? raw.name.slice(0, 200) : null;
}

/** A refused attempt goes to the audit log: who, from where, what they tried and why not (never failing the answer). */
async function recordRefusal(req: Request, principal: Principal | null, err: unknown, status: number, kb: string | null): Promise<void> {
  const address = callerOf(req, resolveAuthSettings()).address;
  const detail = `${status}: ${err instanceof Error ? err.message.slice(0, 200) : "refused"}`;
  await audit(principal, "access_denied", {
    outcome: "denied",
    target: `${req.method} ${new URL(req.url).pathname}`,
    kb,
    detail,
    address,
  }).catch((e) => console.error("[audit] could not record a refused request:", e));
}

const accessDeps = {
  accounts: async () => getAccountStore(await getStore()),
  ssoAccess: async (userId: string) => ssoAccessAllowed(await getStore(), userId),
};

/** The principal of `req` for a public route: null instead of an error. */
export function optionalPrincipal(req: Request): Promise<Principal | null> {
  return authenticateApp(req, accessDeps).catch(() => null);
}

/** "/api/documents/abc" with params {id: "abc"} → "/api/documents/[id]": a bounded label set for metrics. */
function routePattern(pathname: string, params: Record<string, string | string[]>): string {
  const byValue = new Map<string, string>();
  for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) byValue.set(one, `[${k}]`);
  return pathname
    .split("/")
    .map((seg) => byValue.get(safeDecode(seg)) ?? seg)
    .join("/");
}

function safeDecode(seg: string): string {
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}
