"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { z } from "zod";
import { FormIssues, FormText, useIssueForm } from "@/components/forms/form";
import { issuesOf } from "@/components/forms/issues";
import { Field } from "@/components/ui/field";
import { EmptyState } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { McpServerIntegration } from "@/lib/schemas/workspace";
import { useTRPC } from "@/lib/trpc/client";
import { Card, configured, SecretSelect, TestResult } from "./integration-parts";

const EMPTY = { name: "", url: "", apiKeySecret: "" };
const FIELDS = Object.keys(EMPTY);

/** A new server for the saved list: "" is no API key secret, and its name must be free. */
function newServerSchema(saved: readonly McpServerIntegration[]) {
  return z
    .object({ ...McpServerIntegration.shape, apiKeySecret: z.string() })
    .transform(({ apiKeySecret, ...rest }) => ({
      ...rest,
      ...(apiKeySecret ? { apiKeySecret } : {}),
    }))
    .pipe(McpServerIntegration)
    .refine((v) => !saved.some((s) => s.name === v.name), {
      path: ["name"],
      error: (issue) =>
        `Another server is already named ${(issue.input as McpServerIntegration).name}`,
    });
}

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
  const schema = useMemo(() => newServerSchema(saved), [saved]);
  const form = useIssueForm(schema, {
    defaultValues: EMPTY,
    // The server checks the whole list: the new server is its last entry.
    issues: { within: [["mcpServers", saved.length], []], fields: FIELDS },
  });
  const [tested, setTested] = useState<string | null>(null);
  const save = useMutation(
    trpc.settings.updateMcpServers.mutationOptions({
      onSuccess: () => {
        toast("MCP servers saved");
        form.reset(EMPTY);
        void qc.invalidateQueries({ queryKey: trpc.settings.get.queryKey() });
      },
    }),
  );
  const test = useMutation(trpc.settings.testMcpServer.mutationOptions());
  const add = form.handleSubmit((server) =>
    save.mutate(
      { mcpServers: [...saved, server] },
      { onError: (e) => form.applyIssues(issuesOf(e)) },
    ),
  );
  const { errors } = form.formState;
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
          onSubmit={(e) => void add(e)}
        >
          <div className="form-row">
            <FormText control={form.control} name="name" label="Server name" placeholder="github" />
            <Field
              label="API key secret"
              error={errors.apiKeySecret?.message}
              hint="Sent as Authorization: Bearer …"
              render={(p) => (
                <SecretSelect
                  {...p}
                  value={form.watch("apiKeySecret")}
                  onChange={(v) => form.setValue("apiKeySecret", v)}
                  names={secretNames}
                  disabled={false}
                />
              )}
            />
          </div>
          <FormText
            control={form.control}
            name="url"
            label="Server URL"
            type="url"
            placeholder="https://mcp.example.com/mcp"
          />
          <div className="row">
            <button className="btn btn-primary" type="submit" disabled={save.isPending}>
              {save.isPending ? <span className="spinner" aria-hidden /> : null}
              Add server
            </button>
          </div>
        </form>
      ) : null}
      <FormIssues
        errors={errors}
        fallback={save.error && Object.keys(errors).length === 0 ? save.error.message : null}
      />
    </Card>
  );
}
