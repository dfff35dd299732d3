import { randomBytes, timingSafeEqual } from "node:crypto";
import { processGlobal } from "@/lib/process-global";

/**
 * The bearer secret the app's own chat uses on its MCP endpoint when tokens are required: INTERNAL_MCP_TOKEN
 * (set it to the same value on every replica when MCP_URL points at another one), else random per process.
 * It grants read access to every knowledge base, never write.
 */
export function internalMcpSecret(): string {
  return processGlobal("internal-mcp-secret", () => process.env.INTERNAL_MCP_TOKEN || `kbi_${randomBytes(24).toString("base64url")}`);
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function isInternalSecret(secret: string): boolean {
  return safeEqual(secret, internalMcpSecret());
}
