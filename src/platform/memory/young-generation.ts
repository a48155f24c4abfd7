/**
 * V8's young generation, where short-lived objects are born, for the threads the service starts
 * itself (docs/memory.md): the database thread and the compositor's threads. The database
 * thread's garbage (each statement's parsed rows and their message to the event loop) dies within a
 * statement, so 8 MB collects it as well as V8's default, which grows to 32 MB and more and stays
 * resident: ~25 MB less at the same orders per second. A compositor thread's pixels live outside
 * its heap (shared or moved buffers).
 * The event loop's own cap is a start flag (`--max-semi-space-size=8`, which `npm start` passes):
 * a process cannot set it for itself.
 */
export const THREAD_YOUNG_GENERATION_MB = 8;

/** The `resourceLimits` of a worker thread the service starts. */
export const threadLimits = () => ({ resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB } });
