/**
 * A local HTTP receiver standing in for a Slack incoming webhook or a generic alert webhook in
 * tests: records every JSON body it is sent, and answers with the status `respond` picks.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface AlertReceiver {
  url: string;
  received: {
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body: Record<string, unknown>;
  }[];
  /** The status to answer the next requests with (default 200). */
  respond: number;
  close(): Promise<void>;
}

export async function startAlertReceiver(): Promise<AlertReceiver> {
  const r: AlertReceiver = { url: "", received: [], respond: 200, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const status = r.respond;
      if (status < 400) {
        r.received.push({
          path: req.url ?? "/",
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<
            string,
            unknown
          >,
        });
      }
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 400 ? "ok" : "nope");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return r;
}
