import { serve } from "inngest/next";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { securedRoute } from "@/server/http/security-headers";

// The Inngest endpoint: the embedded executor (or a real Inngest) syncs it with PUT and calls it
// with POST; GET answers introspection. Always dynamic: every request is a protocol message.
export const dynamic = "force-dynamic";

const { GET: get, POST: post, PUT: put } = serve({ client: inngest, functions });
export const GET = securedRoute(get);
export const POST = securedRoute(post);
export const PUT = securedRoute(put);
