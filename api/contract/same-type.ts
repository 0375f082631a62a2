/**
 * Compile-time proof that a request schema validates exactly the type a shared/ feature declares for its
 * input. shared/ may not import the API, so a feature states the input it needs as a plain type, and the
 * schema's file holds the two together: `Proof<SameType<FromSchema<typeof schema>, FeatureInput>>` fails
 * `tsc` when a field is added, dropped, made optional or retyped on one side alone.
 */

/** true only when X and Y are identical: generic functions over them are related only then. */
export type SameType<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;

/** Compiles only with `true`. */
export type Proof<T extends true> = T;
