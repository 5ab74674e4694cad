import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import type { WorkspaceFixture } from "./harness";

/**
 * Lets a workspace's steps call a stub server on 127.0.0.1: the SSRF guard has no test mode, so
 * the loopback address is allow-listed like a private API (script steps stay off).
 */
export async function allowLocalStub(ws: WorkspaceFixture): Promise<void> {
  await updateWorkspacePolicies({
    ctx: ws.ctx("admin"),
    input: {
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
    },
  });
}
