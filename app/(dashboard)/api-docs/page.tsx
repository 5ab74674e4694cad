import type { Metadata } from "next";
import { PageHead } from "@/components/shell/page-head";
import { openApiDocument } from "@/server/http/openapi";
import styles from "./api-docs.module.css";

export const metadata: Metadata = { title: "API reference" };

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Json;
}
interface OperationDoc {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  "x-min-role"?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Json }> };
  responses?: Record<string, { description?: string }>;
}

function typeOf(schema: Json | undefined): string {
  if (!schema) return "";
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).join(" | ");
  if (schema.type === "array") return `${typeOf(schema.items as Json)}[]`;
  return typeof schema.type === "string" ? schema.type : "";
}

/**
 * The API reference, rendered from the same OpenAPI document `/api/v1/openapi.json` serves
 * (generated from the zod contracts), with local code only: no CDN, no viewer package.
 */
export default function ApiDocsPage() {
  const doc = openApiDocument() as unknown as {
    paths: Record<string, Record<string, OperationDoc>>;
  };
  const groups = new Map<string, { method: string; path: string; op: OperationDoc }[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? "Other";
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ method, path, op });
    }
  }
  return (
    <div className="page">
      <PageHead
        title="API reference"
        description={
          <>
            Every <code>/api/v1</code> operation. Authenticate with{" "}
            <code>Authorization: Bearer slu_…</code> (Settings → API tokens). Errors are{" "}
            <code>{"{ error: { code, message, details } }"}</code>. Machine-readable:{" "}
            <a href="/api/v1/openapi.json">openapi.json</a>.
          </>
        }
      />
      <nav aria-label="API sections" className="card card-body">
        <ul className={styles.toc}>
          {[...groups.keys()].map((tag) => (
            <li key={tag}>
              <a href={`#tag-${tag}`}>{tag}</a>
            </li>
          ))}
        </ul>
      </nav>
      {[...groups.entries()].map(([tag, ops]) => (
        <section key={tag} className="card" aria-labelledby={`tag-${tag}`}>
          <div className="card-head">
            <h2 id={`tag-${tag}`}>{tag}</h2>
          </div>
          {ops.map(({ method, path, op }) => (
            <OperationView key={op.operationId} method={method} path={path} op={op} />
          ))}
        </section>
      ))}
    </div>
  );
}

function OperationView({ method, path, op }: { method: string; path: string; op: OperationDoc }) {
  const body = op.requestBody?.content?.["application/json"]?.schema;
  const role = op["x-min-role"];
  return (
    <article
      className={styles.op}
      id={op.operationId}
      aria-label={`${method.toUpperCase()} ${path}`}
    >
      <div className={styles.opHead}>
        <span className={`${styles.method} ${styles[method]}`}>{method.toUpperCase()}</span>
        <span className={styles.path}>/api/v1{path === "/" ? "" : path}</span>
        <span>{op.summary}</span>
        <span className="badge">{role ? `${role}+` : "public"}</span>
      </div>
      {op.description ? <p className="muted small">{op.description}</p> : null}
      {op.parameters?.length ? (
        <table className={styles.params}>
          <thead>
            <tr>
              <th>Parameter</th>
              <th>In</th>
              <th>Type</th>
              <th>Notes</th>
            </tr>
          </thead>
          <tbody>
            {op.parameters.map((p) => (
              <tr key={`${p.in}-${p.name}`}>
                <td className="mono">
                  {p.name}
                  {p.required ? " *" : ""}
                </td>
                <td>{p.in}</td>
                <td className="mono">{typeOf(p.schema)}</td>
                <td className="muted">
                  {p.description ?? (p.schema?.description as string) ?? ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {body ? (
        <details>
          <summary className="small">Request body (JSON Schema)</summary>
          <pre className={styles.schema}>{JSON.stringify(body, null, 2)}</pre>
        </details>
      ) : null}
      <div className={styles.statuses} aria-label="Responses">
        {Object.entries(op.responses ?? {}).map(([status, r]) => (
          <span
            key={status}
            className={`badge ${status.startsWith("2") ? "badge-ok" : "badge-warn"}`}
            title={r.description}
          >
            {status}
          </span>
        ))}
      </div>
    </article>
  );
}
