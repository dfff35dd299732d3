/** Test-only: an MCP client connected in memory to this process's knowledge server. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Store } from "@/lib/store";
import { createMcpServer, type KnowledgeServerOptions } from "./index";

/** A client of a knowledge server on `store`, linked to it in memory. */
export async function connectInMemory(store: Store, options: KnowledgeServerOptions = {}) {
  const server = createMcpServer({ getStore: async () => store, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "0" });
  await client.connect(clientSide);
  return client;
}
