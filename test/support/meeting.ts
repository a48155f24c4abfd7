/**
 * A meeting of two, for races staged on purpose: the first to arrive waits until the second does,
 * or `timeoutMs` when the other is held elsewhere (waiting for a lock the first one holds), so that
 * neither waits for ever. Whoever arrives after the meeting goes on at once.
 */
export function meetingOfTwo(timeoutMs = 1000): () => Promise<void> {
  let arrived = 0;
  const waiting: Array<() => void> = [];
  return async () => {
    arrived++;
    if (arrived >= 2) for (const go of waiting.splice(0)) go();
    else await new Promise<void>((go) => waiting.push(go) && setTimeout(go, timeoutMs).unref());
  };
}
