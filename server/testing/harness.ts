/**
 * Test fixtures built on the real services and a real database (PGlite or Postgres, see
 * db/testing.ts). Users are inserted without passwords where a test does not sign in.
 */
import type { Db } from "@/db/client";
import { memberships, users, workspaces } from "@/db/schema";
import { newId } from "@/lib/ids";
import { createLogger } from "@/lib/log";
import { ROLES, type Role } from "@/lib/schemas/roles";
import { keysFromMaster } from "../keys";
import type { Actor, ServiceConfig, ServiceContext } from "../services/context";

// The same master secret the app runtime uses under vitest (vitest.config.mts sets SLUICE_SECRET),
// so values encrypted by a test fixture decrypt inside the engine and vice versa.
export const testKeys = keysFromMaster(
  process.env.SLUICE_SECRET ?? "test-master-secret-test-master-secret",
);
export const testConfig: ServiceConfig = {
  openSignup: false,
  publicUrl: "http://localhost:3000",
  maxActiveRunsPerUser: 5,
  maxActiveRunsPerWorkspace: 50,
};

export function makeCtx(
  db: Db,
  actor: Actor,
  workspace?: { id: string; role: Role },
  overrides: Partial<ServiceContext> = {},
): ServiceContext {
  return {
    db,
    actor,
    workspace,
    keys: testKeys,
    config: testConfig,
    log: createLogger({ test: true }),
    now: () => new Date(),
    ...overrides,
  };
}

export async function insertUser(db: Db, name: string, email?: string): Promise<string> {
  const id = newId("usr");
  await db.insert(users).values({
    id,
    name,
    email: (
      email ?? `${name.toLowerCase().replace(/\W+/g, ".")}.${id.slice(-6)}@example.com`
    ).toLowerCase(),
  });
  return id;
}

export interface WorkspaceFixture {
  workspaceId: string;
  /** One member per role. */
  members: Record<Role, string>;
  ctx(role: Role): ServiceContext;
  /** Adds one more member with the given role and returns their id. */
  addMember(role: Role): Promise<string>;
}

/** A workspace with one member of every role. */
export async function createWorkspaceFixture(db: Db, label = "Acme"): Promise<WorkspaceFixture> {
  const workspaceId = newId("ws");
  await db.insert(workspaces).values({
    id: workspaceId,
    name: label,
    slug: `${label.toLowerCase()}-${workspaceId.slice(-6)}`,
  });
  const members = {} as Record<Role, string>;
  for (const role of ROLES) {
    const userId = await insertUser(db, `${label} ${role}`);
    await db.insert(memberships).values({ workspaceId, userId, role });
    members[role] = userId;
  }
  return {
    workspaceId,
    members,
    ctx: (role) => makeCtx(db, { type: "user", userId: members[role] }, { id: workspaceId, role }),
    async addMember(role) {
      const userId = await insertUser(db, `${label} extra ${role}`);
      await db.insert(memberships).values({ workspaceId, userId, role });
      return userId;
    },
  };
}
