import { z } from "zod";
import { Role } from "./roles";
import { plainText } from "./text";

export const API_TOKEN_PREFIX = "slu_";

export const CreateApiTokenInput = z.object({
  name: plainText(z.string().trim().min(1, "Give the token a name").max(80, "Name is too long")),
  role: Role,
  /** Days until it expires; omitted = never. */
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});
export type CreateApiTokenInput = z.infer<typeof CreateApiTokenInput>;

export const RevokeApiTokenInput = z.object({ tokenId: z.string().min(1).max(64) });
export type RevokeApiTokenInput = z.infer<typeof RevokeApiTokenInput>;
