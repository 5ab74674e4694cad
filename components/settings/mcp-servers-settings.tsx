"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Field } from "@/components/ui/field";
import { EmptyState } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { McpServerIntegration } from "@/lib/schemas/workspace";
import { useTRPC } from "@/lib/trpc/client";
import {
  Card,
  configured,
  fieldErrors,
  SecretSelect,
  TestResult,
  type Errors,
} from "./integration-parts";

const EMPTY = { name: "", url: "", apiKeySecret: "" };

/**
 * The MCP servers `tool` steps call by name. The list is saved as a whole; "Test" lists a saved
 * server's tools, which also lets publishing check tool names and required arguments.
 */
export function McpServersSettings({
  saved,
  isAdmin,
  secretNames,
}: {
  saved: McpServerIntegration[];
  isAdmin: boolean;
  secretNames: string[];
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<Errors>({});
  const [tested, setTested] = useState<string | null>(null);
  const save = useMutation(
    trpc.settings.updateMcpServers.mutationOptions({
      onSuccess: () => {
        toast("MCP servers saved");
        void qc.invalidateQueries({ queryKey: trpc.settings.get.queryKey() });
      },
    }),
  );
  const test = useMutation(trpc.settings.testMcpServer.mutationOptions());
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const add = () => {
    const parsed = McpServerIntegration.safeParse({
      ...form,
      apiKeySecret: form.apiKeySecret || undefined,
    });
    if (parsed.success && saved.some((s) => s.name === parsed.data.name)) {
      setErrors({ name: `Another server is already named ${parsed.data.name}` });
      return;
    }
    setErrors(parsed.success ? {} : fieldErrors(parsed.error.issues, form));
    if (parsed.success) save.mutate({ mcpServers: [...saved, parsed.data] });
  };
  return (
    <Card id="mcp-h" title="MCP servers" badge={configured(saved.length > 0)}>
      <p className="section-note">
        Model Context Protocol servers (streamable HTTP) that tool steps call by name, e.g.{" "}
        <code>{'"server": "github"'}</code>. A server on this machine or your network must be listed
        under Policies → allowed private hosts.
      </p>
      {saved.length ? (
        <table className="table" aria-label="MCP servers">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">URL</th>
              <th scope="col">API key secret</th>
              {isAdmin ? (
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {saved.map((server) => (
              <tr key={server.name}>
                <td>
                  <code>{server.name}</code>
                </td>
                <td>{server.url}</td>
                <td>{server.apiKeySecret ?? <span className="faint">—</span>}</td>
                {isAdmin ? (
                  <td>
                    <div className="row">
                      <button
                        type="button"
                        className="btn btn-sm"
                        disabled={test.isPending}
                        aria-label={`Test ${server.name}`}
                        onClick={() => {
                          setTested(server.name);
                          test.mutate(server);
                        }}
                      >
                        {test.isPending && tested === server.name ? (
                          <span className="spinner" aria-hidden />
                        ) : null}
                        Test
                      </button>
                      <button
                        type="button"
                        className="btn btn-sm btn-danger"
                        disabled={save.isPending}
                        aria-label={`Remove ${server.name}`}
                        onClick={() =>
                          save.mutate({ mcpServers: saved.filter((s) => s.name !== server.name) })
                        }
                      >
                        Remove
                      </button>
                    </div>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <EmptyState title="No MCP servers yet">
          {isAdmin
            ? "Add one below; tool steps then call it by name."
            : "An admin can add one here; tool steps then call it by name."}
        </EmptyState>
      )}
      {tested ? <TestResult result={test.data} error={test.error?.message} /> : null}
      {isAdmin ? (
        <form
          className="form"
          style={{ maxWidth: 640 }}
          noValidate
          aria-label="Add an MCP server"
          onSubmit={(e) => {
            e.preventDefault();
            add();
          }}
        >
          <div className="form-row">
            <Field
              label="Server name"
              type="text"
              value={form.name}
              onChange={(e) => set("name")(e.target.value)}
              placeholder="github"
              error={errors.name}
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
                  disabled={false}
                />
              )}
            />
          </div>
          <Field
            label="Server URL"
            type="url"
            value={form.url}
            onChange={(e) => set("url")(e.target.value)}
            placeholder="https://mcp.example.com/mcp"
            error={errors.url}
          />
          <div className="row">
            <button className="btn btn-primary" type="submit" disabled={save.isPending}>
              {save.isPending ? <span className="spinner" aria-hidden /> : null}
              Add server
            </button>
          </div>
        </form>
      ) : null}
      {save.error ? (
        <div className="form-error" role="alert">
          {save.error.message}
        </div>
      ) : null}
    </Card>
  );
}
