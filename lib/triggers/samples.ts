/**
 * A sample signed request for a webhook trigger, as a shell snippet (curl + openssl), for the UI
 * to show next to the URL and secret. Pure; the secret is inserted only when the caller has it.
 */
import type { WebhookConfig } from "@/lib/schemas/triggers";

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function sampleRequest(args: {
  url: string;
  config: Pick<WebhookConfig, "method" | "verification" | "idHeader">;
  secret?: string;
  body?: string;
}): string {
  const { url, config } = args;
  const v = config.verification;
  const body = args.body ?? '{"hello":"world"}';
  const lines = [
    `URL=${q(url)}`,
    `SECRET=${q(args.secret ?? "<your webhook secret>")}`,
    `BODY=${q(body)}`,
  ];
  const hmacHex = (data: string) =>
    `$(printf '%s' "${data}" | openssl dgst -sha256 -hmac "$SECRET" -hex | sed 's/^.* //')`;
  const hmacB64 = (data: string) =>
    `$(printf '%s' "${data}" | openssl dgst -sha256 -hmac "$SECRET" -binary | openssl base64 -A)`;
  const headers: string[] = ["-H 'content-type: application/json'"];
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
