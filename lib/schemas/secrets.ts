import { z } from "zod";
import { MIN_REDACTABLE_LENGTH } from "../redact";
import { SecretName } from "../workflow/primitives";

export { SecretName };

/** Values are capped so one secret cannot bloat every run that resolves it. */
export const SECRET_VALUE_MAX_BYTES = 65_536;

const utf8Length = (s: string) => new TextEncoder().encode(s).length;

/**
 * A secret value. At least MIN_REDACTABLE_LENGTH characters: shorter values could not be redacted
 * from outputs and logs without mangling unrelated text.
 */
export const SecretValue = z
  .string()
  .min(MIN_REDACTABLE_LENGTH, `Secret values have at least ${MIN_REDACTABLE_LENGTH} characters`)
  .refine((v) => utf8Length(v) <= SECRET_VALUE_MAX_BYTES, {
    message: `Secret values are at most ${SECRET_VALUE_MAX_BYTES / 1024} KiB`,
  });

export const CreateSecretInput = z.object({ name: SecretName, value: SecretValue });
export type CreateSecretInput = z.infer<typeof CreateSecretInput>;

export const UpdateSecretInput = z.object({ name: SecretName, value: SecretValue });
export type UpdateSecretInput = z.infer<typeof UpdateSecretInput>;

export const DeleteSecretInput = z.object({ name: SecretName });
export type DeleteSecretInput = z.infer<typeof DeleteSecretInput>;
