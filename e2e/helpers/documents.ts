import { type APIRequestContext, expect } from "@playwright/test";

/** Uploads one file through /api/documents and returns the new document's id. */
async function uploadDocument(request: APIRequestContext, name: string, data: Buffer, mimeType: string): Promise<string> {
  const res = await request.post("/api/documents", { multipart: { files: { name, mimeType, buffer: data } } });
  expect(res.ok()).toBe(true);
  const { results } = (await res.json()) as { results: { status: string; documentId?: string }[] };
  expect(results[0].documentId).toBeTruthy();
  return results[0].documentId!;
}

/** Uploads that a spec removes again: `upload` remembers each id, `removeAll` deletes them. */
export function uploadsToRemove() {
  const ids: string[] = [];
  return {
    async upload(request: APIRequestContext, name: string, data: Buffer, mimeType: string): Promise<string> {
      const id = await uploadDocument(request, name, data, mimeType);
      ids.push(id);
      return id;
    },
    async removeAll(request: APIRequestContext) {
      for (const id of ids) await request.delete(`/api/documents/${id}`);
    },
  };
}
