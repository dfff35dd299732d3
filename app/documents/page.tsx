import type { Metadata } from "next";
import { DocumentDropZone } from "@/components/documents/DocumentDropZone";
import { DocumentLibrary } from "@/components/documents/DocumentLibrary";

export const metadata: Metadata = { title: "Documents · Knowledge Chat" };

export default function DocumentsPage() {
  return (
    <DocumentDropZone>
      <DocumentLibrary />
    </DocumentDropZone>
  );
}
