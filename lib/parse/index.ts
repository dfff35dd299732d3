import path from "node:path";
import { AppError, type ParsedDocument } from "@/lib/types";
import { parseMarkdown, parsePlainText } from "./text";

type Parser = (data: Uint8Array, filename: string) => ParsedDocument | Promise<ParsedDocument>;

/** Extension → parser. Formats beyond text are registered here as they are added. */
const PARSERS: Record<string, Parser> = {
  ".md": parseMarkdown,
  ".markdown": parseMarkdown,
  ".txt": parsePlainText,
};

export const SUPPORTED_EXTENSIONS = Object.keys(PARSERS);

export function isSupported(filename: string): boolean {
  return path.extname(filename).toLowerCase() in PARSERS;
}

/** Parses a file's bytes into text. Throws AppError("unsupported_type") for anything else. */
export async function parseDocument(filename: string, data: Uint8Array): Promise<ParsedDocument> {
  const ext = path.extname(filename).toLowerCase();
  const parser = PARSERS[ext];
  if (!parser) {
    throw new AppError(
      "unsupported_type",
      `Unsupported file type "${ext || filename}". Supported: ${SUPPORTED_EXTENSIONS.join(", ")}`,
      415,
    );
  }
  return parser(data, filename);
}
