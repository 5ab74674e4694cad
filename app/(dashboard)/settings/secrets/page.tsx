import type { Metadata } from "next";
import { SecretsSettings } from "@/components/settings/secrets-settings";

export const metadata: Metadata = { title: "Secrets" };

export default function SecretsPage() {
  return <SecretsSettings />;
}
