// Parts of the window loaded when first shown, not at open: the code of pages nobody has opened
// yet costs parse time and memory in the web view (docs/benchmarks.md, "The whole app").
import { Component, lazy, Suspense, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';
import { Loading } from './Page';

/** A component from a module loaded on first render: `lazyNamed(() => import('./x'), 'X')`. */
export function lazyNamed<M extends Record<K, ComponentType<any>>, K extends keyof M>(
  load: () => Promise<M>,
  name: K,
): LazyExoticComponent<M[K]> {
  return lazy(async () => ({ default: (await load())[name] }));
}

class LoadFailed extends Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="notice notice-error" role="alert">
        <p>This part of Sentient didn't load. Reloading the window usually fixes it.</p>
        <button type="button" className="btn btn-primary" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    );
  }
}

/** Shows `fallback` (a spinner by default) while a lazy part loads, and a Reload button if it can't. */
export function LazyPart({ children, fallback }: { children: ReactNode; fallback?: ReactNode }) {
  return (
    <LoadFailed>
      <Suspense fallback={fallback ?? <Loading />}>{children}</Suspense>
    </LoadFailed>
  );
}
