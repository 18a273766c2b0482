// Settings > Terminal (contract section 18): the switch with its warning, the folders commands
// may run in and the commands that run without asking, the limits, what runs now with Stop, and
// what is never run whatever these settings say.
import { useEffect, useState } from 'react';
import { useConfig, usePatchConfig } from '../../../api/shared';
import { ErrorNotice, Loading } from '../../../components/Page';
import { SchemaForm } from '../form/SchemaForm';
import { useStopCommand, useTerminalStatus } from './queries';

export function TerminalSettings() {
  return (
    <>
      <TerminalStatusLine />
      <SchemaForm
        section={['terminal']}
        fields={[{ key: 'enabled', title: 'Let the assistant run commands on this computer' }]}
        title="Commands on this computer"
        intro="A command runs as you, in your shell, in the folders listed below. Commands not listed ask first; a few (formatting disks, shutting down, deleting your home folder) never run."
        testId="terminal-form"
      />
      <TerminalLists />
      <SchemaForm
        section={['terminal']}
        fields={[
          { key: 'default_folder', title: 'Folder a command starts in' },
          { key: 'timeout_s', title: 'Stop a command after' },
          { key: 'max_output_chars', title: 'Most output shown to the assistant', unit: 'characters' },
        ]}
        title="Limits"
        intro="The whole output of a long command is saved in your files folder under outputs/."
        testId="terminal-limits-form"
      />
      <RunningCommands />
    </>
  );
}

/** On or off, the shell, and where a command would start; what to do when nothing can run. */
function TerminalStatusLine() {
  const status = useTerminalStatus();
  if (status.isPending) return <p className="settings-status" aria-busy="true">Checking the terminal…</p>;
  if (status.isError) return <p className="settings-status" role="alert">{status.error.detail}</p>;
  const { enabled, shell, default_folder: folder, allowed_folders: folders } = status.data;
  let line: string;
  if (!shell) line = "No shell (bash, zsh or sh) was found on this computer, so commands can't run.";
  else if (!enabled) line = `Commands are off. When on, they run in ${shell}.`;
  else if (folders.length === 0) line = 'Commands are on, but no folder is allowed yet, so nothing runs. Add a folder below.';
  else if (!folder) line = "Commands are on, but the folder they start in doesn't exist or isn't allowed. Check the folders below.";
  else line = `Commands run in ${shell}, starting in ${folder}.`;
  const warn = !shell || (enabled && (folders.length === 0 || !folder));
  return (
    <p className="settings-status" role={warn ? 'alert' : undefined} data-testid="terminal-status">
      {line}
    </p>
  );
}

/** The allowed folders and the listed commands, one a line. */
function TerminalLists() {
  const config = useConfig();
  const patch = usePatchConfig();
  const terminal = (config.data as { terminal?: { allowed_folders?: string[]; allowed_commands?: string[] } } | undefined)?.terminal;
  const [folders, setFolders] = useState('');
  const [commands, setCommands] = useState('');
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!terminal) return;
    setFolders((terminal.allowed_folders ?? []).join('\n'));
    setCommands((terminal.allowed_commands ?? []).join('\n'));
  }, [terminal]);
  if (config.isPending) return <Loading label="Loading the folders and commands…" />;
  const lines = (text: string) =>
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
  return (
    <form
      className="card settings-section"
      data-testid="terminal-lists"
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(false);
        patch.mutate(
          { terminal: { allowed_folders: lines(folders), allowed_commands: lines(commands) } },
          { onSuccess: () => setSaved(true) },
        );
      }}
    >
      <h2>Folders and commands</h2>
      <label className="field">
        <span className="field-label">Folders commands may run in, one a line</span>
        <textarea value={folders} onChange={(e) => setFolders(e.target.value)} rows={3} placeholder="/home/you/projects/site" />
      </label>
      <label className="field">
        <span className="field-label">Commands that run without asking, one a line</span>
        <textarea value={commands} onChange={(e) => setCommands(e.target.value)} rows={4} />
        <span className="muted">
          A command matches when it starts with one of these. It never matches when it chains or redirects (; &amp; | &lt; &gt; $ and the like).
        </span>
      </label>
      <button type="submit" className="btn btn-primary" disabled={patch.isPending}>
        Save folders and commands
      </button>
      {saved ? <span className="muted">Saved.</span> : null}
      <ErrorNotice error={patch.error} prefix="Couldn't save them." />
    </form>
  );
}

/** What runs now, each with Stop; and the kinds of commands that never run. */
function RunningCommands() {
  const status = useTerminalStatus();
  const stop = useStopCommand();
  if (!status.data) return null;
  const { running, blocked } = status.data;
  return (
    <section className="card settings-section" data-testid="terminal-running">
      <h2>Running now</h2>
      {running.length === 0 ? (
        <p className="muted">No command is running.</p>
      ) : (
        <ul>
          {running.map((r) => (
            <li key={r.id} data-testid="terminal-running-command">
              <code>{r.command}</code> <span className="muted">in {r.cwd}</span>{' '}
              <button type="button" className="btn" onClick={() => stop.mutate(r.id)} disabled={stop.isPending}>
                Stop
              </button>
            </li>
          ))}
        </ul>
      )}
      <ErrorNotice error={stop.error} prefix="Couldn't stop it." />
      <h2>Never run</h2>
      <p className="muted">Whatever these settings say, Sentient never runs commands for {blocked.join(', ')}.</p>
    </section>
  );
}
