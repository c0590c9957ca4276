/**
 * A queue that runs the calls given to it one at a time, in order; a call that fails does not stop
 * the next. For a resource that takes one user at a time (a connection, a thread).
 */
export function serially(): <T>(run: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (run) => {
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  };
}
