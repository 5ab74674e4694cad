import { z } from "zod";
import { SecretName } from "../workflow/primitives";

export { SecretName };

/**
 * Shorter values could not be redacted from outputs and logs without mangling unrelated text
 * (equals MIN_REDACTABLE_LENGTH in lib/redact.ts, which the client bundle need not load).
 */
export const SECRET_VALUE_MIN_LENGTH = 4;

/** Values are capped so one secret cannot bloat every run that resolves it. */
export const SECRET_VALUE_MAX_BYTES = 65_536;

const utf8Length = (s: string) => new TextEncoder().encode(s).length;

export const SecretValue = z
  .string()
  .min(SECRET_VALUE_MIN_LENGTH, `Secret values have at least ${SECRET_VALUE_MIN_LENGTH} characters`)
  .refine((v) => utf8Length(v) <= SECRET_VALUE_MAX_BYTES, {
    message: `Secret values are at most ${SECRET_VALUE_MAX_BYTES / 1024} KiB`,
  });

export const CreateSecretInput = z.object({ name: SecretName, value: SecretValue });
export type CreateSecretInput = z.infer<typeof CreateSecretInput>;

export const UpdateSecretInput = z.object({ name: SecretName, value: SecretValue });
export type UpdateSecretInput = z.infer<typeof UpdateSecretInput>;

export const DeleteSecretInput = z.object({ name: SecretName });
export type DeleteSecretInput = z.infer<typeof DeleteSecretInput>;
