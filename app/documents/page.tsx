import type { Metadata } from "next";
import { connection } from "next/server";
import { DocumentLibrary } from "@/components/documents/DocumentLibrary";
import { UploadKbScope } from "@/components/kbs/UploadKbScope";
import { getConfig } from "@/lib/config";

export const metadata: Metadata = { title: "Documents · Knowledge Chat" };

export default async function DocumentsPage() {
  // Rendered per request: the upload limit (MAX_UPLOAD_MB) is read at run time.
  await connection();
  return (
    <UploadKbScope maxFileBytes={getConfig().maxUploadBytes}>
      <DocumentLibrary />
    </UploadKbScope>
  );
}
