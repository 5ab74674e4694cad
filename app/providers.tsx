"use client";
import { SessionProvider } from "next-auth/react";
import type { ReactNode } from "react";
import { ToastProvider } from "@/components/ui/toast";
import { TRPCReactProvider } from "@/lib/trpc/client";

export function Providers({ children }: { children: ReactNode }) {
  return (
    <SessionProvider refetchOnWindowFocus={false}>
      <TRPCReactProvider>
        <ToastProvider>{children}</ToastProvider>
      </TRPCReactProvider>
    </SessionProvider>
  );
}
