import { serve } from "inngest/next";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";

// The Inngest endpoint: the embedded executor (or a real Inngest) syncs it with PUT and calls it
// with POST; GET answers introspection. Always dynamic: every request is a protocol message.
export const dynamic = "force-dynamic";

export const { GET, POST, PUT } = serve({ client: inngest, functions });
