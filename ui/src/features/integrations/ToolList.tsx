// What Sentient can do in an app or with a tool server: each tool with what it may do ("Looks
// things up", "Changes things", "Sends", "Runs code"). Under Read only, the tools that change
// things say they are off.
import { useId, useState } from 'react';
import { riskWords } from './words';

export type ToolRow = { name: string; description: string; risk: string; per_call?: boolean };

export function ToolList({ tools, readOnly, label = 'What Sentient can do here' }: { tools: ToolRow[]; readOnly: boolean; label?: string }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  if (tools.length === 0) return null;
  return (
    <div className="int-tools">
      <button type="button" className="int-disclosure" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)}>
        <span className="int-caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        {label} ({tools.length})
      </button>
      {open ? (
        <ul className="int-tool-list" id={id} aria-label={label}>
          {tools.map((t) => {
            const off = readOnly && t.risk !== 'read';
            return (
              <li key={t.name} className={off ? 'int-tool int-tool-off' : 'int-tool'} data-testid="tool" data-tool={t.name}>
                <span className={`int-risk int-risk-${t.risk}`} data-testid="risk">
                  {t.per_call ? 'Depends on the call' : riskWords(t.risk)}
                </span>
                <span className="int-tool-text">
                  <code className="int-tool-name">{t.name}</code>
                  {t.description ? <span className="int-tool-desc">{t.description}</span> : null}
                  {off ? <span className="int-tool-note">Off while Read only is on.</span> : null}
                </span>
              </li>
            );
          })}
        </ul>
      ) : null}
    </div>
  );
}
