import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { NotifyConfig } from "@/lib/workflow/steps";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import { startSmtpServer, type LocalSmtp } from "@/server/testing/local-smtp";
import { notifyHandler } from "./notify";
import { failureOf, makeActionContext } from "./testing";
import type { ActionContext, SmtpSettings } from "./types";

const policy = {
  scriptStepsEnabled: false,
  allowedPrivateHosts: ["127.0.0.1"],
  forbiddenStepTypes: [],
};
let hooks: LocalServer;
let smtp: LocalSmtp;

beforeAll(async () => {
  hooks = await startHttpServer((req, res) => {
    if (req.url === "/slack") {
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end("ok");
    }
    if (req.url === "/slack-gone") {
      res.writeHead(404, { "content-type": "text/plain" });
      return res.end("no_service");
    }
    if (req.url === "/busy") return sendJson(res, 503, { error: "busy" }, { "retry-after": "2" });
    return sendJson(res, 202, { accepted: true });
  });
  smtp = await startSmtpServer({
    user: "mailer",
    password: "smtp-pass-123",
    rejectRecipients: ["nobody@example.com"],
  });
});
afterAll(async () => {
  await hooks?.close();
  await smtp?.close();
});

function ctxFor(
  config: z.input<typeof NotifyConfig>,
  overrides: Partial<ActionContext<z.output<typeof NotifyConfig>>> = {},
) {
  // Literal 127.0.0.1 targets pass the config schema; only the SSRF allow-list gates them.
  return makeActionContext(NotifyConfig, config, { policy, ...overrides });
}

const smtpSettings = (): SmtpSettings => ({
  host: "127.0.0.1",
  port: smtp.port,
  secure: false,
  user: "mailer",
  password: "smtp-pass-123",
  from: "Sluice <sluice@example.com>",
});

describe("notify step", () => {
  it("posts { text } to a Slack-compatible webhook", async () => {
    const out = await notifyHandler(
      ctxFor({ channel: "slack", target: `${hooks.origin}/slack`, message: "Deploy done ✓" }),
    );
    expect(out.data).toEqual({ delivered: true, channel: "slack", status: 200 });
    const req = hooks.requests.at(-1)!;
    expect(req.method).toBe("POST");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(req.body)).toEqual({ text: "Deploy done ✓" });
  });

  it("posts the documented JSON payload to a generic webhook with an Idempotency-Key", async () => {
    const out = await notifyHandler(
      ctxFor({ channel: "webhook", target: `${hooks.origin}/generic`, message: "Build failed" }),
    );
    expect(out.data).toEqual({ delivered: true, channel: "webhook", status: 202 });
    const req = hooks.requests.at(-1)!;
    expect(req.headers["idempotency-key"]).toBe("idem_run_test_step_1");
    const body = JSON.parse(req.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      event: "sluice.notify",
      text: "Build failed",
      message: "Build failed",
      workspaceId: "ws_test",
      workflowId: "wf_test",
      runId: "run_test",
      stepId: "step",
      attempt: 1,
    });
    expect(Date.parse(body.sentAt as string)).not.toBeNaN();
  });

  it("classifies webhook errors: 4xx user, 5xx operational with Retry-After", async () => {
    const gone = await failureOf(
      notifyHandler(
        ctxFor({ channel: "slack", target: `${hooks.origin}/slack-gone`, message: "x" }),
      ),
    );
    expect(gone.failureClass).toBe("user");
    expect(gone.message).toBe("Slack webhook answered 404 Not Found: no_service");
    const busy = await failureOf(
      notifyHandler(ctxFor({ channel: "webhook", target: `${hooks.origin}/busy`, message: "x" })),
    );
    expect(busy).toMatchObject({ failureClass: "operational", retryAfterMs: 2000 });
  });

  it("refuses private targets that are not allowed", async () => {
    const f = await failureOf(
      notifyHandler(
        ctxFor(
          { channel: "slack", target: `${hooks.origin}/slack`, message: "x" },
          { policy: { ...policy, allowedPrivateHosts: [] } },
        ),
      ),
    );
    expect(f.failureClass).toBe("user");
    expect(f.message).toMatch(/loopback address/);
  });

  it("sends email through the workspace SMTP server with a stable Message-ID", async () => {
    const out = await notifyHandler(
      ctxFor(
        {
          channel: "email",
          target: "ops@example.com",
          message: "Line one\nLine two",
          subject: "Run finished",
        },
        { smtp: smtpSettings() },
      ),
    );
    expect(out.data).toMatchObject({
      delivered: true,
      channel: "email",
      accepted: ["ops@example.com"],
    });
    const mail = smtp.messages.at(-1)!;
    expect(mail).toMatchObject({
      from: "sluice@example.com",
      to: ["ops@example.com"],
      user: "mailer",
    });
    expect(mail.data).toMatch(/^Subject: Run finished$/m);
    expect(mail.data).toMatch(/^Message-ID: <idem_run_test_step_1@sluice\.invalid>$/m);
    expect(mail.data).toContain("Line one");
  });

  it("fails clearly without SMTP, on a bad login, on a refused recipient and on a blocked host", async () => {
    const none = await failureOf(
      notifyHandler(ctxFor({ channel: "email", target: "ops@example.com", message: "x" })),
    );
    expect(none.message).toMatch(/Email is not configured/);
    const login = await failureOf(
      notifyHandler(
        ctxFor(
          { channel: "email", target: "ops@example.com", message: "x" },
          { smtp: { ...smtpSettings(), password: "wrong" } },
        ),
      ),
    );
    expect(login.failureClass).toBe("user");
    expect(login.message).toMatch(/refused the login/);
    const rcpt = await failureOf(
      notifyHandler(
        ctxFor(
          { channel: "email", target: "nobody@example.com", message: "x" },
          { smtp: smtpSettings() },
        ),
      ),
    );
    expect(rcpt.failureClass).toBe("user");
    expect(rcpt.message).toMatch(/550|refused the recipients/);
    const blocked = await failureOf(
      notifyHandler(
        ctxFor(
          { channel: "email", target: "ops@example.com", message: "x" },
          { smtp: smtpSettings(), policy: { ...policy, allowedPrivateHosts: [] } },
        ),
      ),
    );
    expect(blocked.failureClass).toBe("user");
    expect(blocked.message).toMatch(
      /SMTP server 127\.0\.0\.1: Refused to connect to 127\.0\.0\.1: it is a loopback address/,
    );
  });

  it("reports a TLS mismatch (secure: true against a plain server) as a user error", async () => {
    const f = await failureOf(
      notifyHandler(
        ctxFor(
          { channel: "email", target: "ops@example.com", message: "x" },
          { smtp: { ...smtpSettings(), secure: true } },
        ),
      ),
    );
    expect(f.failureClass).toBe("user");
    expect(f.message).toMatch(/TLS failed/);
  });

  it("retries (operational) when the SMTP server is unreachable", async () => {
    const down = await startSmtpServer();
    await down.close();
    const f = await failureOf(
      notifyHandler(
        ctxFor(
          { channel: "email", target: "ops@example.com", message: "x" },
          { smtp: { ...smtpSettings(), port: down.port } },
        ),
      ),
    );
    expect(f.failureClass).toBe("operational");
  });
});
