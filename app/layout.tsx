import type { ReactNode } from "react";

export const metadata = { title: "Sluice", description: "Durable workflow automation" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
