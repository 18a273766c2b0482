// Building blocks every page uses, so loading, empty and error states look and read the same.
import type { ReactNode } from 'react';
import type { ApiError } from '../api';
import { ErrorActions } from './ErrorActions';

export function Page({ title, intro, children }: { title: string; intro?: ReactNode; children?: ReactNode }) {
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title">{title}</h1>
        {intro ? <p className="page-intro">{intro}</p> : null}
      </header>
      {children}
    </section>
  );
}

export function EmptyState({ icon, title, children }: { icon?: ReactNode; title: string; children?: ReactNode }) {
  return (
    <div className="card empty-state">
      {icon ? (
        <div className="empty-icon" aria-hidden="true">
          {icon}
        </div>
      ) : null}
      <h2>{title}</h2>
      {children ? <div className="empty-body">{children}</div> : null}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/** The engine's own sentence, plus a way to try again when that makes sense. */
export function ErrorNotice({
  error,
  prefix,
  onRetry,
}: {
  error: ApiError | null | undefined;
  prefix?: string;
  onRetry?: () => void;
}) {
  if (!error) return null;
  return (
    <div className="notice notice-error" role="alert">
      <p>
        {prefix ? `${prefix} ` : ''}
        {error.detail}
      </p>
      <ErrorActions sentence={error.detail} />
      {onRetry ? (
        <button type="button" className="btn btn-quiet" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
