import { z } from "zod";
import { plainText } from "./text";

export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "Email is too long")
  .email("Enter a valid email address");

export const Password = z
  .string()
  .min(10, "Password must be at least 10 characters")
  .max(200, "Password must be at most 200 characters");

export const PersonName = plainText(
  z.string().trim().min(1, "Enter your name").max(100, "Name is too long"),
);

export const SignUpInput = z.object({
  name: PersonName,
  email: Email,
  password: Password,
  /** Required unless this is the first user or open sign-up is enabled. */
  invitationToken: z.string().min(10).max(200).optional(),
  /** Name of the workspace a first (or open sign-up) user creates. */
  workspaceName: plainText(z.string().trim().min(1).max(80)).optional(),
});
export type SignUpInput = z.infer<typeof SignUpInput>;

export const SignInInput = z.object({ email: Email, password: z.string().min(1).max(200) });
export type SignInInput = z.infer<typeof SignInInput>;
