import { handleWebhook } from "@/server/http/hooks";

export const dynamic = "force-dynamic";

/** `/api/hooks/<path>`: the webhook receiver (server/services/triggers/receive-webhook.ts). */
export const GET = handleWebhook;
export const POST = handleWebhook;
export const PUT = handleWebhook;
export const PATCH = handleWebhook;
export const DELETE = handleWebhook;
