"use client";
import { usePathname, useSearchParams } from "next/navigation";
import { useCallback } from "react";

/**
 * The run page's open step, kept in the URL (`?step=<path>`) so it can be linked to. Native
 * replaceState updates the URL at once and Next syncs useSearchParams with it.
 */
export function useSelectedStep(): [string | null, (path: string | null) => void] {
  const pathname = usePathname();
  const selected = useSearchParams().get("step");
  const setSelected = useCallback(
    (path: string | null) => {
      const params = new URLSearchParams(window.location.search);
      if (path) params.set("step", path);
      else params.delete("step");
      const qs = params.toString();
      window.history.replaceState(null, "", qs ? `${pathname}?${qs}` : pathname);
    },
    [pathname],
  );
  return [selected, setSelected];
}
