/**
 * A real (minimal) SMTP server on 127.0.0.1 for tests: EHLO, AUTH PLAIN/LOGIN, MAIL, RCPT, DATA,
 * RSET, NOOP, QUIT. No TLS. Messages are kept in memory.
 */
import net from "node:net";

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
  user?: string;
}

export interface LocalSmtp {
  port: number;
  messages: ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpServer(
  opts: { user?: string; password?: string; rejectRecipients?: string[] } = {},
): Promise<LocalSmtp> {
  const messages: ReceivedMail[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let buffer = "";
    let mode: "command" | "data" | "auth-user" | "auth-pass" = "command";
    let current: ReceivedMail = { from: "", to: [], data: "" };
    let authUser: string | undefined;
    let pendingUser = "";
    const send = (line: string) => socket.write(`${line}\r\n`);
    const checkAuth = (user: string, pass: string) => {
      if (user === opts.user && pass === opts.password) {
        authUser = user;
        send("235 2.7.0 Authentication successful");
      } else send("535 5.7.8 Authentication credentials invalid");
    };
    send("220 fake.smtp.test ESMTP ready");
    socket.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      for (;;) {
        if (mode === "data") {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) return;
          current.data = buffer.slice(0, end).replace(/\r\n\.\./g, "\r\n.");
          buffer = buffer.slice(end + 5);
          messages.push({ ...current, user: authUser });
          current = { from: "", to: [], data: "" };
          mode = "command";
          send("250 2.0.0 OK queued as FAKE1");
          continue;
        }
        const nl = buffer.indexOf("\r\n");
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        if (mode === "auth-user") {
          pendingUser = Buffer.from(line, "base64").toString("utf8");
          mode = "auth-pass";
          send("334 UGFzc3dvcmQ6");
          continue;
        }
        if (mode === "auth-pass") {
          mode = "command";
          checkAuth(pendingUser, Buffer.from(line, "base64").toString("utf8"));
          continue;
        }
        const [verb = "", ...rest] = line.split(" ");
        const arg = rest.join(" ");
        switch (verb.toUpperCase()) {
          case "EHLO":
          case "HELO":
            socket.write("250-fake.smtp.test\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME\r\n");
            break;
          case "AUTH": {
            const [mech = "", initial] = arg.split(" ");
            if (mech.toUpperCase() === "PLAIN" && initial) {
              const [, user = "", pass = ""] = Buffer.from(initial, "base64")
                .toString("utf8")
                .split("\u0000");
              checkAuth(user, pass);
            } else if (mech.toUpperCase() === "LOGIN") {
              mode = "auth-user";
              send("334 VXNlcm5hbWU6");
            } else send("504 5.5.4 Unrecognized authentication type");
            break;
          }
          case "MAIL":
            if (opts.user && !authUser) {
              send("530 5.7.0 Authentication required");
              break;
            }
            current.from =
              arg
                .replace(/^FROM:\s*/i, "")
                .replace(/[<>]/g, "")
                .split(" ")[0] ?? "";
            send("250 2.1.0 OK");
            break;
          case "RCPT": {
            const to =
              arg
                .replace(/^TO:\s*/i, "")
                .replace(/[<>]/g, "")
                .split(" ")[0] ?? "";
            if (opts.rejectRecipients?.includes(to)) send("550 5.1.1 No such user");
            else {
              current.to.push(to);
              send("250 2.1.5 OK");
            }
            break;
          }
          case "DATA":
            mode = "data";
            send("354 End data with <CR><LF>.<CR><LF>");
            break;
          case "RSET":
            current = { from: "", to: [], data: "" };
            send("250 2.0.0 OK");
            break;
          case "NOOP":
            send("250 2.0.0 OK");
            break;
          case "QUIT":
            send("221 2.0.0 Bye");
            socket.end();
            return;
          default:
            send("502 5.5.2 Command not recognized");
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    messages,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
