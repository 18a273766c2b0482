// The Tool servers section: every MCP server with its state and tools, and Add a server.
import { useState } from 'react';
import { useMcpServers } from './queries';
import { ErrorNotice, Loading } from '../../components/Page';
import { AddServerDialog } from './AddServerDialog';
import { ServerCard } from './ServerCard';

export const NO_SERVERS = 'No tool servers yet. Add one to give Sentient more tools, such as a file browser or a database.';

export function ToolServers() {
  const servers = useMcpServers();
  const [adding, setAdding] = useState(false);

  let body;
  if (servers.isPending) body = <Loading label="Loading tool servers…" />;
  else if (servers.error)
    body = <ErrorNotice error={servers.error} prefix="Couldn't load the tool servers." onRetry={() => void servers.refetch()} />;
  else if (servers.data.length === 0)
    body = (
      <p className="card int-empty muted" data-testid="no-servers">
        {NO_SERVERS}
      </p>
    );
  else
    body = (
      <ul className="int-list" aria-label="Tool servers">
        {servers.data.map((s) => (
          <ServerCard key={s.name} server={s} />
        ))}
      </ul>
    );

  return (
    <section className="int-section" aria-labelledby="tool-servers-title">
      <div className="int-section-head">
        <div>
          <h2 id="tool-servers-title">Tool servers</h2>
          <p className="muted">Programs and web services that give Sentient more tools (MCP).</p>
        </div>
        <button type="button" className="btn btn-primary" onClick={() => setAdding(true)}>
          Add a server
        </button>
      </div>
      {body}
      {adding ? <AddServerDialog onClose={() => setAdding(false)} /> : null}
    </section>
  );
}
