// A value as of the last render, for a callback made earlier (a subscription made once, a timer): what it reads
// through the ref is never stale.
import { useRef } from 'preact/hooks';

export function useLatest<T>(value: T): { readonly current: T } {
  const ref = useRef(value);
  ref.current = value;
  return ref;
}
