"use client";
import { createContext, useContext, type ReactNode } from "react";
import { hasRole, type Role } from "@/lib/schemas/roles";

const RoleContext = createContext<Role>("viewer");

export function RoleProvider({ role, children }: { role: Role; children: ReactNode }) {
  return <RoleContext.Provider value={role}>{children}</RoleContext.Provider>;
}

/** The current role, to hide actions a member cannot take (the server refuses them anyway). */
export function useRole() {
  const role = useContext(RoleContext);
  return { role, can: (minimum: Role) => hasRole(role, minimum) };
}
