import type { Metadata } from "next";
import { PeopleManager } from "@/components/account/PeopleManager";

export const metadata: Metadata = { title: "People · Knowledge Chat" };

export default function PeoplePage() {
  return <PeopleManager />;
}
