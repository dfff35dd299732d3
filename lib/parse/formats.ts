/** File extensions the parsers accept, and their format. Pure data, safe to import from client code. */
export const EXTENSION_FORMATS = {
  ".pdf": "pdf",
  ".docx": "docx",
  ".html": "html",
  ".htm": "html",
  ".xhtml": "html",
  ".csv": "csv",
  ".tsv": "csv",
  ".json": "json",
  ".md": "markdown",
  ".markdown": "markdown",
  ".txt": "text",
  ".text": "text",
  ".png": "image",
  ".jpg": "image",
  ".jpeg": "image",
  ".webp": "image",
  ".tif": "image",
  ".tiff": "image",
  ".pptx": "pptx",
  ".xlsx": "xlsx",
  ".odt": "opendocument",
  ".ods": "opendocument",
  ".odp": "opendocument",
  ".epub": "epub",
  ".eml": "eml",
} as const;

export type FormatName = (typeof EXTENSION_FORMATS)[keyof typeof EXTENSION_FORMATS];

export const SUPPORTED_EXTENSIONS = Object.keys(EXTENSION_FORMATS);

/** The extension of a file name, lower-cased, with its dot ("" when it has none), as path.extname reads it. */
export function extensionOf(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}

/** The refusal of a file whose extension no parser reads: the server's words, shown by the browser before any upload. */
export function unsupportedTypeMessage(filename: string, type: string): string {
  return `Unsupported file type "${type}" for "${filename}". Supported: ${SUPPORTED_EXTENSIONS.join(", ")}`;
}

/** The formats read, as the UI and the docs name them (one list, language-neutral). */
export const FORMAT_LIST = "PDF, DOCX, PPTX, XLSX, ODT, ODS, ODP, EPUB, EML, HTML, Markdown, CSV, JSON, TXT, PNG, JPEG, WebP, TIFF";

/** `accept` attribute for file pickers. */
export const ACCEPT_ATTRIBUTE = SUPPORTED_EXTENSIONS.join(",");

const OPEN_DOCUMENT_LABELS: Record<string, string> = {
  "application/vnd.oasis.opendocument.text": "ODT",
  "application/vnd.oasis.opendocument.spreadsheet": "ODS",
  "application/vnd.oasis.opendocument.presentation": "ODP",
};

/** Short label for a stored document's MIME type (library table). */
export function formatLabel(mimeType: string): string {
  if (mimeType === "application/pdf") return "PDF";
  if (mimeType.includes("wordprocessingml")) return "DOCX";
  if (mimeType === "text/html") return "HTML";
  if (mimeType === "text/csv") return "CSV";
  if (mimeType === "application/json") return "JSON";
  if (mimeType === "text/markdown") return "Markdown";
  if (mimeType === "text/plain") return "Text";
  if (mimeType.startsWith("image/")) return mimeType.slice(6).toUpperCase();
  if (mimeType.includes("presentationml")) return "PPTX";
  if (mimeType.includes("spreadsheetml")) return "XLSX";
  if (mimeType in OPEN_DOCUMENT_LABELS) return OPEN_DOCUMENT_LABELS[mimeType];
  if (mimeType === "application/epub+zip") return "EPUB";
  if (mimeType === "message/rfc822") return "E-mail";
  return mimeType;
}

/** A sheet record's section heading (lib/parse/sheets.ts): its sheet and its own row, which a citation then names. */
export const recordHeading = (sheet: string, row: number) => `# ${sheet}, row ${row}`;
/** The document view reads a record's row back from its heading. */
export const RECORD_HEADING_RE = /^#{1,6} (.+), row (\d+)$/;
