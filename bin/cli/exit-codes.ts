/** SPEC §9 exit codes. */
export const EXIT = {
  ok: 0,
  validation: 10,
  contract: 20,
  policy: 30,
  internal: 40,
} as const;
