/**
 * Runs async tasks one at a time, in call order. A mirror store passes its
 * writes and its reloads through one lock, so a reload that read the database
 * before a write committed cannot put the pre-write state back after it.
 */
export type SerialLock = <T>(task: () => Promise<T>) => Promise<T>;

export function createSerialLock(): SerialLock {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task);
    tail = run.catch(() => undefined);
    return run;
  };
}
