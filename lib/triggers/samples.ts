/**
 * A sample signed request for a webhook trigger, as a shell snippet (curl + openssl), for the UI
 * to show next to the URL and secret. Pure; the secret is inserted only when the caller has it.
 * With the workflow's declared inputs, the request carries exactly what a run needs: a value at
 * every mapped source of a required input without a default, and nothing for optional inputs
 * (so their defaults apply) — the sample starts a run as it stands.
 */
import type { WebhookConfig } from "@/lib/schemas/triggers";
import type { InputSpec } from "@/lib/workflow/definition";
import { writeJsonPath } from "./mapping";

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

type SampleInputSpec = Pick<InputSpec, "type"> &
  Partial<Pick<InputSpec, "required" | "default" | "enum">>;

export interface SampleDelivery {
  /** The JSON body (`{}` when nothing is read from it). */
  body: unknown;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** What the sample leaves out, or what no request can satisfy, as sentences. */
  notes: string[];
}

/** An example value of an input's type (its first enum value when it has one). */
function exampleOf(name: string, spec: SampleInputSpec | undefined): unknown {
  if (spec?.enum?.length) return spec.enum[0];
  switch (spec?.type) {
    case "number":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return `example ${name}`;
  }
}

/**
 * The request values that start a run through `mapping`: `inputs` are the workflow's declared
 * inputs (unknown when nothing is published: every mapped source then gets an example).
 */
export function sampleDelivery(args: {
  mapping: Record<string, string>;
  input: Record<string, unknown>;
  inputs?: Readonly<Record<string, SampleInputSpec>>;
  /** Header values every delivery must carry: the sample sends them. */
  requireHeaders?: Record<string, string>;
  /** The source of the run's repository ref: the sample puts `main` there. */
  repositoryRef?: string;
  /** A filter is not solved for: the sample says it may be skipped. */
  hasFilter?: boolean;
}): SampleDelivery {
  const { mapping, input, inputs } = args;
  let body: unknown = {};
  const query: Record<string, string> = {};
  const headers: Record<string, string> = { ...args.requireHeaders };
  const notes: string[] = [];
  const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
  const put = (source: string, value: unknown) => {
    if (source.startsWith("$")) body = writeJsonPath(body, source, value);
    else if (source.startsWith("query.")) query[source.slice("query.".length)] = String(value);
    else if (source.startsWith("header.")) headers[source.slice("header.".length)] = String(value);
  };
  if (args.repositoryRef) put(args.repositoryRef, "main");
  if (args.hasFilter)
    notes.push("The webhook's filter may skip this sample (answered 200 with the reason).");
  for (const [name, source] of Object.entries(mapping)) {
    const spec = inputs && has(inputs, name) ? inputs[name] : undefined;
    if (inputs && !spec) {
      notes.push(`"${name}" is not an input of the workflow: remove its mapping.`);
      continue;
    }
    if (has(input, name)) continue;
    if (spec && (!spec.required || spec.default !== undefined)) {
      notes.push(
        `Optional: ${name} ← ${source}${spec.default !== undefined ? ` (default ${JSON.stringify(spec.default)})` : ""}.`,
      );
      continue;
    }
    put(source, exampleOf(name, spec));
  }
  for (const [name, spec] of Object.entries(inputs ?? {}))
    if (spec.required && spec.default === undefined && !has(mapping, name) && !has(input, name))
      notes.push(
        `Input "${name}" is required but neither mapped nor in the static input: add a mapping.`,
      );
  return { body, query, headers, notes };
}

export function sampleRequest(args: {
  url: string;
  config: Pick<WebhookConfig, "method" | "verification" | "idHeader"> &
    Partial<
      Pick<WebhookConfig, "mapping" | "input" | "requireHeaders" | "repositoryRef" | "filter">
    >;
  secret?: string;
  /** Overrides the body built from the mapping. */
  body?: string;
  /** The workflow's declared inputs (its current version's). */
  inputs?: Readonly<Record<string, SampleInputSpec>>;
}): string {
  const { config } = args;
  const v = config.verification;
  const sample = sampleDelivery({
    mapping: config.mapping ?? {},
    input: config.input ?? {},
    inputs: args.inputs,
    requireHeaders: config.requireHeaders,
    repositoryRef: config.repositoryRef,
    hasFilter: !!config.filter,
  });
  const search = new URLSearchParams(sample.query).toString();
  const url = search ? `${args.url}?${search}` : args.url;
  const body = args.body ?? JSON.stringify(sample.body);
  const bodyless = config.method === "GET" && Object.keys(sample.body ?? {}).length > 0;
  const lines = [
    ...sample.notes.map((n) => `# ${n}`),
    ...(bodyless
      ? ["# A GET request has no body: map these inputs from query.… or header.… instead."]
      : []),
    `URL=${q(url)}`,
    `SECRET=${q(args.secret ?? "<your webhook secret>")}`,
    `BODY=${q(body)}`,
  ];
  const hmacHex = (data: string) =>
    `$(printf '%s' "${data}" | openssl dgst -sha256 -hmac "$SECRET" -hex | sed 's/^.* //')`;
  const hmacB64 = (data: string) =>
    `$(printf '%s' "${data}" | openssl dgst -sha256 -hmac "$SECRET" -binary | openssl base64 -A)`;
  const headers: string[] = [
    "-H 'content-type: application/json'",
    ...Object.entries(sample.headers).map(([k, val]) => `-H ${q(`${k}: ${val}`)}`),
  ];
  switch (v.preset) {
    case "hmac": {
      const data = v.timestampHeader ? "$TS.$BODY" : "$BODY";
      if (v.timestampHeader) lines.push("TS=$(date +%s)");
      lines.push(`SIG=${v.encoding === "hex" ? hmacHex(data) : hmacB64(data)}`);
      headers.push(`-H "${v.header}: ${v.prefix}$SIG"`);
      if (v.timestampHeader) headers.push(`-H "${v.timestampHeader}: $TS"`);
      headers.push(`-H "${config.idHeader}: $(date +%s%N)"`);
      break;
    }
    case "github":
      lines.push(`SIG=${hmacHex("$BODY")}`);
      headers.push(
        `-H "X-Hub-Signature-256: sha256=$SIG"`,
        `-H "X-GitHub-Delivery: $(date +%s%N)"`,
      );
      break;
    case "stripe":
      lines.push("TS=$(date +%s)", `SIG=${hmacHex("$TS.$BODY")}`);
      headers.push(`-H "Stripe-Signature: t=$TS,v1=$SIG"`);
      break;
    case "standard":
      lines.push(
        "ID=msg_$(date +%s%N)",
        "TS=$(date +%s)",
        `KEY=$(printf '%s' "\${SECRET#whsec_}" | openssl base64 -d -A | od -An -v -tx1 | tr -d ' \\n')`,
        `SIG=$(printf '%s' "$ID.$TS.$BODY" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$KEY -binary | openssl base64 -A)`,
      );
      headers.push(
        `-H "webhook-id: $ID"`,
        `-H "webhook-timestamp: $TS"`,
        `-H "webhook-signature: v1,$SIG"`,
      );
      break;
    case "none":
      break;
  }
  const data = config.method === "GET" ? "" : ` \\\n  --data "$BODY"`;
  lines.push(`curl -sS -X ${config.method} "$URL" \\\n  ${headers.join(" \\\n  ")}${data}`);
  return lines.join("\n");
}
