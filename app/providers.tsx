"use client";
import { SessionProvider } from "next-auth/react";
import type { ReactNode } from "react";
import { z } from "zod";
import { ToastProvider } from "@/components/ui/toast";
import { TRPCReactProvider } from "@/lib/trpc/client";

// zod probes for eval with `Function("")` to pick its JIT; the page CSP has no 'unsafe-eval', so the
// probe would only log a CSP violation before zod falls back. Say jitless up front, in the browser.
if (typeof window !== "undefined") z.config({ jitless: true });

export function Providers({ children }: { children: ReactNode }) {
  return (
    <SessionProvider refetchOnWindowFocus={false}>
      <TRPCReactProvider>
        <ToastProvider>{children}</ToastProvider>
      </TRPCReactProvider>
    </SessionProvider>
  );
}
