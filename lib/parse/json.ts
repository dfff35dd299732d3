import { AppError, type ParsedDocument } from "@/lib/types";
import { decodeText } from "./text";

/** JSON → pretty-printed text (two-space indent), so keys and values read as lines. */
export function parseJson(data: Uint8Array, filename: string): ParsedDocument {
  const source = decodeText(data).replace(/^\uFEFF/, "");
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (err) {
    throw new AppError("parse_failed", `"${filename}" is not valid JSON: ${(err as Error).message}`);
  }
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return { text, mimeType: "application/json" };
}
