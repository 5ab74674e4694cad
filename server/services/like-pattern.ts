/** Escapes LIKE/ILIKE wildcards so user text matches literally (Postgres' default escape is `\`). */
export function escapeLike(s: string) {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
