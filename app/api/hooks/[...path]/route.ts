import { handleWebhook } from "@/server/http/hooks";
import { securedRoute } from "@/server/http/security-headers";

export const dynamic = "force-dynamic";

/**
 * `/api/hooks/<path>`: the webhook receiver (server/services/triggers/receive-webhook.ts). Every
 * method goes to it (OPTIONS too: a 405 naming the trigger's method), so Next never answers on
 * its own without the API headers; HEAD runs GET.
 */
const handler = securedRoute(handleWebhook);
export const GET = handler;
export const POST = handler;
export const PUT = handler;
export const PATCH = handler;
export const DELETE = handler;
export const OPTIONS = handler;
