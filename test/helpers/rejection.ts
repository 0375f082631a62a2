/** The error `promise` rejects with, which must be of `type` (anything else fails the test). */
export async function rejection<E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof type) return err;
    throw err;
  }
  throw new Error(`expected ${type.name}`);
}
