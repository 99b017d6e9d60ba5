/**
 * `useJson(path, token, version)`: the JSON at `path`, fetched again whenever the path, the token
 * or `version` changes (raise `version` to reload after a change). Loading until the first reply
 * for this path; while a reload runs the last reply stays on screen. A failure is kept to show.
 */
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';

export type Loaded<T> =
  { state: 'loading' } | { state: 'ok'; value: T } | { state: 'failed'; error: unknown };

export function useJson<T>(path: string, token: string, version = 0): Loaded<T> {
  const [loaded, setLoaded] = useState<{ path: string; result: Loaded<T> } | null>(null);
  useEffect(() => {
    const stop = new AbortController();
    getJson<T>(path, token, { signal: stop.signal }).then(
      (value) => setLoaded({ path, result: { state: 'ok', value } }),
      (error: unknown) => {
        if (!stop.signal.aborted) setLoaded({ path, result: { state: 'failed', error } });
      },
    );
    return () => stop.abort();
  }, [path, token, version]);
  return loaded === null || loaded.path !== path ? { state: 'loading' } : loaded.result;
}
