import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./globals.css";
import "@/components/ui/primitives.css";
import { SkipToMain } from "@/components/shell/skip-links";
import { Providers } from "./providers";

export const metadata: Metadata = {
  title: { default: "Sluice", template: "%s · Sluice" },
  description: "Durable workflow automation with approval gates and reviewed changes",
  // Served from public/ (no generated or remote assets).
  icons: {
    icon: [
      { url: "/favicon.ico", sizes: "16x16 32x32 48x48" },
      { url: "/icon.svg", type: "image/svg+xml" },
    ],
    apple: "/apple-touch-icon.png",
  },
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Render per request: the nonce proxy.ts puts in the CSP exists only at request time, and a page
  // prerendered at build time would carry scripts without it (blocked). Every page was dynamic
  // already; this also covers the 404 page and any page added later.
  await connection();
  return (
    <html lang="en">
      <body>
        <SkipToMain />
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
