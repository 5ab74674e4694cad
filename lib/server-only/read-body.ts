/**
 * Reads a request body as bytes with a cap: null (the caller answers 413) when Content-Length
 * declares more than `maxBytes`, or as soon as the stream grows past it, so an oversized body is
 * never buffered whole whatever Content-Length claimed. An absent body is empty.
 */
export async function readBodyCapped(req: Request, maxBytes: number): Promise<Buffer | null> {
  if (Number(req.headers.get("content-length") ?? 0) > maxBytes) return null;
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      // Cancelling tells the sender to stop; a failure to do so changes nothing for the caller.
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
