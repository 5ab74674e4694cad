import { test } from "@playwright/test";
import { OWNER_STATE } from "../fixtures/users";
import { EmptyWorkspace } from "../pages/empty-states-page";

// Issue #26.10: every list shows a loading state and, when empty, says what to do next.
test.use({ storageState: OWNER_STATE });

test("every list of a new workspace says it is empty and what to do next", async ({ page }) => {
  const ws = new EmptyWorkspace(page);
  await ws.create(`Empty ${Date.now()}`);

  await ws.expectEmpty("/workflows", "No workflows yet", { link: "Create your first workflow" });
  await ws.expectEmpty("/runs", "No runs yet", { link: "Open workflows" });
  await ws.expectEmpty("/proposals", "No open proposals", { text: /allowSelfModification/ });
  await ws.expectEmpty("/queue", "Nothing waiting for you", { text: /appear here/ });
  await ws.expectEmpty("/approvals", "Nothing waiting for you", { text: /appear here/ });
  await ws.expectEmptyTab("History", "No decisions yet", { text: /once someone decides/ });
  await ws.expectEmpty("/settings/secrets", "No secrets yet", { text: /Add API keys/ });
  await ws.expectEmpty("/settings/api-tokens", "No API tokens", { text: /Create one above/ });
  await ws.expectEmpty("/settings/members", "No open invitations", { text: /Invite someone/ });
  await ws.expectEmpty("/settings/integrations", "No MCP servers yet", { text: /Add one below/ });
});

test("lists show a busy loading state until their first page arrives", async ({ page }) => {
  const ws = new EmptyWorkspace(page);
  await ws.expectLoading("/runs", "run.list", "Loading runs");
  await ws.expectLoading("/workflows", "workflow.list", "Loading workflows");
  await ws.expectLoading("/proposals", "proposal.list", "Loading proposals");
  await ws.expectLoading("/settings/audit", "audit.list", "Loading audit log");
});
