import { AppError } from "@/lib/types";
import { MAX_CONVERSATION_BYTES } from "./schema";

/** The JSON body of a request, read with a byte limit enforced while reading (not after). */
export async function readLimitedJson(req: Request, limit = MAX_CONVERSATION_BYTES): Promise<unknown> {
  const tooLarge = () => new AppError("too_large", `The request body is larger than ${limit} bytes.`, 413);
  if (Number(req.headers.get("content-length") ?? 0) > limit) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new AppError("bad_request", "The request body must be JSON.");
  }
}
