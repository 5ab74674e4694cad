import type { Metadata } from "next";
import { MembersSettings } from "@/components/settings/members-settings";
import { HydrateClient, prefetch, trpc } from "@/server/trpc/rsc";

export const metadata: Metadata = { title: "Members" };

export default async function MembersPage() {
  await prefetch(trpc.member.list.queryOptions());
  return (
    <HydrateClient>
      <MembersSettings />
    </HydrateClient>
  );
}
