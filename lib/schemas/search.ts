import { z } from "zod";

/** The most results of each kind one search returns (the command palette shows them all). */
export const SEARCH_LIMIT = 10;

export const GlobalSearchInput = z.object({
  q: z
    .string({ error: "q: expected the text to search for" })
    .trim()
    .min(1, "q: type at least one character")
    .max(200, "q: at most 200 characters"),
});
export type GlobalSearchInput = z.infer<typeof GlobalSearchInput>;
