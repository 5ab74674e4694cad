import "server-only";
import nodemailer from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport";
import { parseIp } from "@/lib/net/ip";
import { resolveOutboundHost, type OutboundPolicy } from "../net/outbound-host";
import { SafeFetchError } from "../net/safe-fetch-error";

/**
 * Email through the workspace's SMTP server (nodemailer). The SMTP host goes through the same
 * SSRF rules as HTTP: resolved once, every address checked, the connection made to the checked
 * address with the original name kept for TLS (SNI and certificate checks). A relay on the
 * Sluice host itself (localhost:25) must therefore be in the allowed private hosts.
 */

export interface SmtpConfig {
  host: string;
  port: number;
  /** TLS from the first byte (465). Otherwise STARTTLS is used when the server offers it. */
  secure: boolean;
  user?: string;
  password?: string;
  from: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** Stable Message-ID (e.g. from the step's idempotency key) so receivers can drop duplicates. */
  messageId?: string;
}

export interface SentMail {
  messageId: string;
  accepted: string[];
  rejected: string[];
  response: string;
}

export type SmtpErrorKind =
  "refused" | "auth" | "tls" | "connection" | "timeout" | "rejected" | "protocol";

export class SmtpError extends Error {
  constructor(
    readonly kind: SmtpErrorKind,
    message: string,
    readonly retryable: boolean,
    readonly extra: { responseCode?: number; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = "SmtpError";
  }
}

export interface SmtpCallOptions {
  outbound?: OutboundPolicy;
  signal?: AbortSignal;
  /** Per phase (connect, greeting, socket idle). Default 20 s. */
  timeoutMs?: number;
}

async function transportFor(smtp: SmtpConfig, options: SmtpCallOptions) {
  let addresses;
  try {
    addresses = await resolveOutboundHost(smtp.host, options.outbound ?? {}, options.signal);
  } catch (e) {
    if (e instanceof SafeFetchError) {
      throw new SmtpError(
        e.code === "BLOCKED_ADDRESS" ? "refused" : "connection",
        `SMTP server ${smtp.host}: ${e.message}`,
        e.retryable,
        { cause: e },
      );
    }
    throw e;
  }
  const pinned = addresses[0]!;
  const isName = parseIp(smtp.host) === null;
  const timeout = options.timeoutMs ?? 20_000;
  const transportOptions: SMTPTransport.Options & { servername?: string } = {
    host: pinned.address,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.password ?? "" } } : {}),
    ...(isName ? { servername: smtp.host, tls: { servername: smtp.host } } : {}),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  return nodemailer.createTransport(transportOptions);
}

function mapError(e: unknown, smtp: SmtpConfig): SmtpError {
  if (e instanceof SmtpError) return e;
  const err = e as Error & { code?: string; responseCode?: number; response?: string };
  const where = `SMTP server ${smtp.host}:${smtp.port}`;
  const detail = err.response ? `${err.message}` : err.message;
  const code = err.code ?? "";
  if (code === "EAUTH") {
    return new SmtpError("auth", `${where} refused the login: ${detail}`, false, {
      responseCode: err.responseCode,
      cause: e,
    });
  }
  if (
    code === "ETLS" ||
    /certificate|TLS|SSL/i.test(code) ||
    /certificate|wrong version number/i.test(err.message)
  ) {
    return new SmtpError("tls", `${where}: TLS failed: ${detail}`, false, { cause: e });
  }
  if (code === "ETIMEDOUT")
    return new SmtpError("timeout", `${where} timed out: ${detail}`, true, { cause: e });
  if (code === "ECONNECTION" || code === "ESOCKET" || code === "EDNS" || code === "ECONNREFUSED") {
    return new SmtpError("connection", `Could not reach ${where}: ${detail}`, true, { cause: e });
  }
  if (typeof err.responseCode === "number") {
    const transient = err.responseCode >= 400 && err.responseCode < 500;
    return new SmtpError(
      transient ? "protocol" : "rejected",
      `${where} answered ${err.responseCode}: ${detail}`,
      transient,
      {
        responseCode: err.responseCode,
        cause: e,
      },
    );
  }
  if (code === "EENVELOPE")
    return new SmtpError("rejected", `${where} refused the recipients: ${detail}`, false, {
      cause: e,
    });
  return new SmtpError("protocol", `${where}: ${detail}`, true, { cause: e });
}

async function withTransport<T>(
  smtp: SmtpConfig,
  options: SmtpCallOptions,
  work: (t: nodemailer.Transporter<SMTPTransport.SentMessageInfo>) => Promise<T>,
): Promise<T> {
  const transport = await transportFor(smtp, options);
  const signal = options.signal;
  const onAbort = () => transport.close();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (signal?.aborted) throw new SmtpError("connection", "Sending was cancelled", false);
    return await work(transport);
  } catch (e) {
    if (signal?.aborted)
      throw new SmtpError("connection", "Sending was cancelled", true, { cause: e });
    throw mapError(e, smtp);
  } finally {
    signal?.removeEventListener("abort", onAbort);
    transport.close();
  }
}

/** Connects, negotiates TLS and logs in without sending anything ("Test connection"). */
export async function verifySmtp(smtp: SmtpConfig, options: SmtpCallOptions = {}): Promise<void> {
  await withTransport(smtp, options, async (t) => {
    await t.verify();
  });
}

export async function sendMail(
  smtp: SmtpConfig,
  message: MailMessage,
  options: SmtpCallOptions = {},
): Promise<SentMail> {
  return withTransport(smtp, options, async (t) => {
    const info = await t.sendMail({
      from: smtp.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.messageId ? { messageId: message.messageId } : {}),
    });
    const addr = (a: string | { address: string }) => (typeof a === "string" ? a : a.address);
    return {
      messageId: info.messageId,
      accepted: (info.accepted ?? []).map(addr),
      rejected: (info.rejected ?? []).map(addr),
      response: info.response,
    };
  });
}
