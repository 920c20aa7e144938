/**
 * A promise and the function that resolves it, for a test that lets the library go on, or learns
 * that it got somewhere, at a moment of its choosing (Node 20 has no `Promise.withResolvers`).
 */
export function latch(): [promise: Promise<void>, open: () => void] {
  let open: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return [promise, open];
}
