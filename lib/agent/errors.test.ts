import { MCPClientError } from "@ai-sdk/mcp";
import { APICallError } from "@ai-sdk/provider";
import { RetryError } from "ai";
import { describe, expect, it } from "vitest";
import { classifyChatError } from "./errors";
import { parseChatError } from "./protocol";

const ctx = { baseURL: "http://127.0.0.1:9/v1", model: "m", mcpUrl: "http://x/api/mcp" };
const apiError = (statusCode?: number, cause?: unknown) =>
  new APICallError({ message: "x", url: "http://127.0.0.1:9/v1/chat/completions", requestBodyValues: {}, statusCode, cause });

describe("classifyChatError", () => {
  it("maps a refused connection, also after retries, to model_unreachable", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    expect(classifyChatError(apiError(undefined, refused), ctx)).toMatchObject({ code: "model_unreachable", detail: ctx.baseURL });
    const retry = new RetryError({
      message: "failed after 2 attempts",
      reason: "maxRetriesExceeded",
      errors: [apiError(undefined, refused), apiError(undefined, refused)],
    });
    expect(classifyChatError(retry, ctx).code).toBe("model_unreachable");
    expect(classifyChatError(new TypeError("fetch failed", { cause: refused }), ctx).code).toBe("model_unreachable");
  });

  it("maps HTTP statuses of the provider", () => {
    expect(classifyChatError(apiError(401), ctx).code).toBe("invalid_key");
    expect(classifyChatError(apiError(403), ctx).code).toBe("invalid_key");
    expect(classifyChatError(apiError(404), ctx)).toMatchObject({ code: "model_not_found", detail: "m" });
    expect(classifyChatError(apiError(429), ctx).code).toBe("rate_limited");
    expect(classifyChatError(apiError(500), ctx).code).toBe("model_error");
  });

  it("maps MCP client failures to mcp_unavailable", () => {
    expect(classifyChatError(new MCPClientError({ message: "HTTP 500" }), ctx)).toMatchObject({
      code: "mcp_unavailable",
      detail: ctx.mcpUrl,
    });
  });

  it("falls back to internal", () => {
    expect(classifyChatError(new Error("boom"), ctx).code).toBe("internal");
  });
});

describe("parseChatError", () => {
  it("reads the route's JSON body and stream error text", () => {
    expect(parseChatError(JSON.stringify({ error: { code: "invalid_key", message: "m" } }))).toEqual({ code: "invalid_key", message: "m" });
    expect(parseChatError(JSON.stringify({ code: "mcp_unavailable", message: "m", detail: "u" }))).toEqual({
      code: "mcp_unavailable",
      message: "m",
      detail: "u",
    });
    expect(parseChatError("Failed to fetch")).toBeNull();
    expect(parseChatError(undefined)).toBeNull();
  });
});
