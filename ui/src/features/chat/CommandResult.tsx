// What a command on this computer gave back (contract section 18's TerminalResult), read as a
// terminal would show it: how it ended, where it ran, and its output and errors as text.
import { ReadableValue } from './ReadableValue';

type CommandOutcome = {
  ok?: boolean;
  cwd?: string;
  shell?: string;
  exit_code?: number | null;
  stdout?: string;
  stderr?: string;
  timed_out?: boolean;
  stopped?: boolean;
  output_file?: string | null;
  error?: string | null;
};

function isOutcome(value: unknown): value is CommandOutcome {
  return typeof value === 'object' && value !== null && 'stdout' in value && 'exit_code' in value;
}

/** One line on how the command ended. */
function ending(r: CommandOutcome): string {
  if (r.error) return r.error;
  if (typeof r.exit_code === 'number') return r.exit_code === 0 ? 'Finished (exit code 0).' : `Finished with exit code ${r.exit_code}.`;
  return 'Finished.';
}

export function CommandResult({ result }: { result: unknown }) {
  if (!isOutcome(result)) return <ReadableValue value={result} />;
  return (
    <div className="command-result">
      <p>{ending(result)}</p>
      {result.cwd ? (
        <p className="muted">
          In {result.cwd}
          {result.shell ? ` with ${result.shell}` : ''}
        </p>
      ) : null}
      {result.stdout ? (
        <pre className="tool-progress" aria-label="Output">
          {result.stdout}
        </pre>
      ) : null}
      {result.stderr ? (
        <pre className="tool-progress" aria-label="Errors">
          {result.stderr}
        </pre>
      ) : null}
      {result.output_file ? <p className="muted">The whole output is in your files, at {result.output_file}.</p> : null}
    </div>
  );
}
