import type { Metadata } from "next";
import { ApiTokensSettings } from "@/components/settings/api-tokens-settings";

export const metadata: Metadata = { title: "API tokens" };

export default function ApiTokensPage() {
  return <ApiTokensSettings />;
}
