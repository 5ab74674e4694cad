"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { Field } from "@/components/ui/field";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { LlmIntegration, SmtpIntegration } from "@/lib/schemas/workspace";
import { useTRPC } from "@/lib/trpc/client";
import { fieldErrors, IntegrationForm, SecretSelect, type Errors } from "./integration-parts";
import { McpServersSettings } from "./mcp-servers-settings";
import check from "@/components/ui/check.module.css";

/** LLM endpoint, SMTP server and MCP servers. Everyone reads; admins edit, save and test. */
export function IntegrationsSettings() {
  const trpc = useTRPC();
  const { can } = useRole();
  const isAdmin = can("admin");
  const settings = useQuery(trpc.settings.get.queryOptions());
  // Admins pick secrets by name; others only see the names already configured.
  const secrets = useQuery({ ...trpc.secret.list.queryOptions(), enabled: isAdmin });
  if (settings.isPending) {
    return (
      <div className="card">
        <LoadingRows label="Loading integrations" />
      </div>
    );
  }
  if (settings.error) {
    return (
      <div className="card">
        <ErrorState message={settings.error.message} onRetry={() => settings.refetch()} />
      </div>
    );
  }
  const secretNames = secrets.data?.map((s) => s.name) ?? [];
  const missing = settings.data.missingSecrets;
  return (
    <div className="stack">
      {!isAdmin ? (
        <div className="callout">
          Only workspace admins can change integrations. You are viewing them read-only.
        </div>
      ) : null}
      {missing.length ? (
        <div className="callout callout-warn" role="alert">
          These integrations name secrets that do not exist:{" "}
          {missing.map((m) => (
            <code key={m}>{m} </code>
          ))}
          . Create them under Settings → Secrets, or pick another secret.
        </div>
      ) : null}
      <LlmForm
        key={`llm:${JSON.stringify(settings.data.llm)}`}
        saved={settings.data.llm}
        isAdmin={isAdmin}
        secretNames={secretNames}
      />
      <SmtpForm
        key={`smtp:${JSON.stringify(settings.data.smtp)}`}
        saved={settings.data.smtp}
        isAdmin={isAdmin}
        secretNames={secretNames}
      />
      <McpServersSettings
        key={`mcp:${JSON.stringify(settings.data.mcpServers)}`}
        saved={settings.data.mcpServers}
        isAdmin={isAdmin}
        secretNames={secretNames}
      />
    </div>
  );
}

function LlmForm({
  saved,
  isAdmin,
  secretNames,
}: {
  saved: LlmIntegration | null;
  isAdmin: boolean;
  secretNames: string[];
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const [initial] = useState({
    baseUrl: saved?.baseUrl ?? "",
    model: saved?.model ?? "",
    apiKeySecret: saved?.apiKeySecret ?? "",
  });
  const [form, setForm] = useState(initial);
  const [errors, setErrors] = useState<Errors>({});
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.settings.get.queryKey() });
  const save = useMutation(
    trpc.settings.updateLlm.mutationOptions({
      onSuccess: (r) => {
        toast(r.llm ? "LLM endpoint saved" : "LLM endpoint removed");
        void refresh();
      },
    }),
  );
  const test = useMutation(trpc.settings.testLlm.mutationOptions());
  const parse = () => {
    const parsed = LlmIntegration.safeParse({
      ...form,
      apiKeySecret: form.apiKeySecret || undefined,
    });
    setErrors(parsed.success ? {} : fieldErrors(parsed.error.issues, form));
    return parsed.success ? parsed.data : null;
  };
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const readOnly = !isAdmin;
  return (
    <IntegrationForm
      id="llm-h"
      title="LLM endpoint"
      saved={saved !== null}
      dirty={JSON.stringify(form) !== JSON.stringify(initial)}
      isAdmin={isAdmin}
      note={
        <>
          Any OpenAI-compatible chat completions API (OpenAI, Ollama, vLLM, LM Studio, LiteLLM, …),
          used by llm and agent steps. A server on this machine or your network must be listed under
          Policies → allowed private hosts.
        </>
      }
      onSave={() => {
        const llm = parse();
        if (llm) save.mutate({ llm });
      }}
      onTest={() => {
        const llm = parse();
        if (llm) test.mutate(llm);
      }}
      onRemove={() => save.mutate({ llm: null })}
      saving={save.isPending}
      testing={test.isPending}
      saveError={save.error?.message}
      testResult={test.data}
      testError={test.error?.message}
    >
      <Field
        label="Base URL"
        type="url"
        value={form.baseUrl}
        onChange={(e) => set("baseUrl")(e.target.value)}
        placeholder="https://api.openai.com/v1"
        readOnly={readOnly}
        error={errors.baseUrl}
        hint="Up to the version segment; requests go to <base URL>/chat/completions."
      />
      <div className="form-row">
        <Field
          label="Default model"
          type="text"
          value={form.model}
          onChange={(e) => set("model")(e.target.value)}
          placeholder="gpt-4o-mini"
          readOnly={readOnly}
          error={errors.model}
        />
        <Field
          label="API key secret"
          error={errors.apiKeySecret}
          hint="Sent as Authorization: Bearer …"
          render={(p) => (
            <SecretSelect
              {...p}
              value={form.apiKeySecret}
              onChange={set("apiKeySecret")}
              names={secretNames}
              disabled={readOnly}
            />
          )}
        />
      </div>
    </IntegrationForm>
  );
}

function SmtpForm({
  saved,
  isAdmin,
  secretNames,
}: {
  saved: SmtpIntegration | null;
  isAdmin: boolean;
  secretNames: string[];
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const [initial] = useState({
    host: saved?.host ?? "",
    port: String(saved?.port ?? 587),
    secure: saved?.secure ?? false,
    user: saved?.user ?? "",
    passwordSecret: saved?.passwordSecret ?? "",
    from: saved?.from ?? "",
  });
  const [form, setForm] = useState(initial);
  const [errors, setErrors] = useState<Errors>({});
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.settings.get.queryKey() });
  const save = useMutation(
    trpc.settings.updateSmtp.mutationOptions({
      onSuccess: (r) => {
        toast(r.smtp ? "SMTP settings saved" : "SMTP settings removed");
        void refresh();
      },
    }),
  );
  const test = useMutation(trpc.settings.testSmtp.mutationOptions());
  const parse = () => {
    const parsed = SmtpIntegration.safeParse({
      ...form,
      port: form.port.trim() === "" ? NaN : Number(form.port),
      user: form.user.trim() || undefined,
      passwordSecret: form.passwordSecret || undefined,
    });
    setErrors(parsed.success ? {} : fieldErrors(parsed.error.issues, form));
    return parsed.success ? parsed.data : null;
  };
  const set = (k: "host" | "port" | "user" | "passwordSecret" | "from") => (v: string) =>
    setForm((f) => ({ ...f, [k]: v }));
  const readOnly = !isAdmin;
  return (
    <IntegrationForm
      id="smtp-h"
      title="Email (SMTP)"
      saved={saved !== null}
      dirty={JSON.stringify(form) !== JSON.stringify(initial)}
      isAdmin={isAdmin}
      note="Used by notify steps with the email channel. Test connection logs in without sending mail."
      onSave={() => {
        const smtp = parse();
        if (smtp) save.mutate({ smtp });
      }}
      onTest={() => {
        const smtp = parse();
        if (smtp) test.mutate(smtp);
      }}
      onRemove={() => save.mutate({ smtp: null })}
      saving={save.isPending}
      testing={test.isPending}
      saveError={save.error?.message}
      testResult={test.data}
      testError={test.error?.message}
    >
      <div className="form-row">
        <Field
          label="Host"
          type="text"
          value={form.host}
          onChange={(e) => set("host")(e.target.value)}
          placeholder="smtp.example.com"
          readOnly={readOnly}
          error={errors.host}
        />
        <Field
          label="Port"
          type="number"
          min={1}
          max={65535}
          value={form.port}
          onChange={(e) => set("port")(e.target.value)}
          readOnly={readOnly}
          error={errors.port}
        />
      </div>
      <label className={check.check}>
        <input
          type="checkbox"
          checked={form.secure}
          disabled={readOnly}
          onChange={(e) =>
            setForm((f) => ({
              ...f,
              secure: e.target.checked,
              port:
                f.port === "587" && e.target.checked
                  ? "465"
                  : f.port === "465" && !e.target.checked
                    ? "587"
                    : f.port,
            }))
          }
        />
        <span>
          TLS from the start (port 465). Off: plain connection upgraded with STARTTLS when the
          server offers it (port 587).
        </span>
      </label>
      <div className="form-row">
        <Field
          label="User"
          type="text"
          value={form.user}
          onChange={(e) => set("user")(e.target.value)}
          autoComplete="off"
          readOnly={readOnly}
          error={errors.user}
        />
        <Field
          label="Password secret"
          error={errors.passwordSecret}
          render={(p) => (
            <SecretSelect
              {...p}
              value={form.passwordSecret}
              onChange={set("passwordSecret")}
              names={secretNames}
              disabled={readOnly}
            />
          )}
        />
      </div>
      <Field
        label="From"
        type="text"
        value={form.from}
        onChange={(e) => set("from")(e.target.value)}
        placeholder="Sluice <alerts@example.com>"
        readOnly={readOnly}
        error={errors.from}
      />
    </IntegrationForm>
  );
}
