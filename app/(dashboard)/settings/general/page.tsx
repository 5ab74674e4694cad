import type { Metadata } from "next";
import { GeneralSettings } from "@/components/settings/general-settings";
import { TwoFactorRequirement } from "@/components/settings/two-factor-requirement";

export const metadata: Metadata = { title: "General settings" };

export default function GeneralPage() {
  return (
    <div className="stack">
      <GeneralSettings />
      <TwoFactorRequirement />
    </div>
  );
}
