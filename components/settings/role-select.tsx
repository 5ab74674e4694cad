"use client";
import { ROLES, ROLE_LABELS, type Role } from "@/lib/schemas/roles";

export function RoleSelect({
  value,
  onChange,
  max,
  disabled,
  id,
  label,
}: {
  value: Role;
  onChange: (r: Role) => void;
  /** Roles above this are not offered. */
  max?: Role;
  disabled?: boolean;
  id?: string;
  label?: string;
}) {
  const allowed = max ? ROLES.slice(0, ROLES.indexOf(max) + 1) : ROLES;
  return (
    <select
      id={id}
      aria-label={label}
      value={value}
      disabled={disabled}
      onChange={(e) => onChange(e.target.value as Role)}
    >
      {ROLES.map((r) => (
        <option key={r} value={r} disabled={!allowed.includes(r)} title={ROLE_LABELS[r]}>
          {r}
        </option>
      ))}
    </select>
  );
}
