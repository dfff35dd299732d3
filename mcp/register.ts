import type { McpServer, ToolCallback } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { Store } from "@/lib/store";
import { catalogKbNames, guardedRead, type ReadTarget, type ToolContext } from "./context";
import { guardedAdd } from "./write-access";

/** What registerTool is told of a tool, but its input schema. */
export interface ToolConfig {
  title: string;
  description: string;
  outputSchema?: z.ZodObject;
  annotations: ToolAnnotations;
  _meta?: Record<string, unknown>;
}

/** A tool's input schema: fixed, or made for the knowledge bases the server's catalog lists (its `kb` enum). */
type Input<S extends z.ZodObject> = S | ((kbNames?: readonly string[]) => S);

function register<S extends z.ZodObject>(
  server: McpServer,
  ctx: ToolContext,
  name: string,
  config: ToolConfig & { input: Input<S> },
  handler: (args: z.output<S>) => Promise<CallToolResult>,
): void {
  const { input, ...rest } = config;
  const inputSchema = typeof input === "function" ? input(catalogKbNames(ctx)) : input;
  // The SDK types the handler by a conditional on S that TypeScript cannot resolve for a generic S.
  server.registerTool(name, { ...rest, inputSchema }, handler as unknown as ToolCallback<S>);
}

/** Registers a reading tool: each call runs through guardedRead, with the knowledge base(s) it may read and the store. */
export function registerReadTool<S extends z.ZodObject>(
  server: McpServer,
  ctx: ToolContext,
  name: string,
  config: ToolConfig & { input: Input<S> },
  body: (args: z.output<S>, target: ReadTarget) => Promise<CallToolResult>,
): void {
  register(server, ctx, name, config, guardedRead(name, ctx, body));
}

/** Registers an adding tool: each call runs through guardedAdd, with the knowledge base it adds to and the store. */
export function registerAddTool<S extends z.ZodObject>(
  server: McpServer,
  ctx: ToolContext,
  name: string,
  config: ToolConfig & { input: Input<S> },
  body: (args: z.output<S> & { kb?: string }, target: { kb: string; store: Store }) => Promise<CallToolResult>,
): void {
  register(server, ctx, name, config, guardedAdd(name, ctx, body));
}
