import type { Metadata } from "next";
import { DocumentLibrary } from "@/components/documents/DocumentLibrary";
import { UploadKbScope } from "@/components/kbs/UploadKbScope";

export const metadata: Metadata = { title: "Documents · Knowledge Chat" };

export default function DocumentsPage() {
  return (
    <UploadKbScope>
      <DocumentLibrary />
    </UploadKbScope>
  );
}
