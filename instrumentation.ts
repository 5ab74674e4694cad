/**
 * Next.js start-up hook. On the Node.js runtime it starts the embedded Inngest-compatible executor
 * (unless SLUICE_EXECUTOR=inngest), the outbox relay, and the shutdown handlers. It does not wait for the
 * database or the app: Next holds every request until `register()` resolves.
 */
export async function register() {
  // NEXT_RUNTIME is inlined by Next at build time; reading it here rather than through env.ts lets
  // the edge bundle drop the Node-only import below.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const {
    embeddedExecutor,
    embeddedExecutorSynced,
    installShutdownHandlers,
    startEmbeddedExecutor,
  } = await import("./inngest/executor/embedded");
  installShutdownHandlers();
  const { effectiveSigningKey } = await import("./inngest/signing-key");
  const embedded = startEmbeddedExecutor({ signingKey: effectiveSigningKey() });
  if (embedded) {
    // Once synced, the executor (same process, same database) takes run starts inside the
    // admitting transaction instead of through the outbox; until then, and for a real Inngest,
    // the outbox carries them.
    const { setInProcessExecutor } = await import("./server/services/outbox/in-process-executor");
    void embeddedExecutorSynced()
      .then(async () => setInProcessExecutor(await embeddedExecutor()))
      .catch(() => undefined);
  }
  // The outbox relay runs in every app process, embedded executor or not. Not awaited: it opens
  // the database, and Next holds requests until register() resolves.
  const { startBackground } = await import("./server/boot");
  void startBackground(embeddedExecutorSynced).catch(() => undefined);
}
