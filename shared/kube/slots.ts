// At most `max` calls to the API server at once from this process; the rest
// wait here, in order. An https Agent's own queue would hold each waiting call
// as a ClientRequest with its headers, URL and serialized body. That is a few
// KB each, and more than a thousand of them wait when a burst of runs meets a
// slow API server. Here a waiting call is one closure over what the caller has
// anyway, and its request is made only when a slot frees.

export type Slots = <T>(call: () => Promise<T>) => Promise<T>;

export function slots(max: number): Slots {
  let busy = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else busy--;
  };
  return <T>(call: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const start = () => {
        let running: Promise<T>;
        try {
          running = call();
        } catch (error) {
          running = Promise.reject(error);
        }
        running.then(resolve, reject).finally(release);
      };
      if (busy < max) {
        busy++;
        start();
      } else {
        waiting.push(start);
      }
    });
}
