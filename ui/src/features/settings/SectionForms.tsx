// Settings tabs made entirely from the settings' schema: Chats, Tasks, Approvals & safety, Scripts.
// Each card names the fields it shows; their words, ranges, units and choices come from the
// schema (../form/), and a field the schema hides or marks "Not used yet" is left out.
import { useSandboxStatus } from './queries';
import { SchemaForm } from './form/SchemaForm';

export function ChatSettings() {
  return (
    <>
      <SchemaForm
        section={['chat']}
        fields={['show_thinking', 'auto_title', 'parallel_read_tools']}
        title="Chats"
        intro="How Sentient names, shows and answers your chats."
        testId="chat-form"
      />
      <SchemaForm
        section={['chat']}
        fields={[
          { key: 'history_window', title: 'Recent messages sent with each reply', unit: 'messages' },
          { key: 'compress_after_messages', title: 'Summarize long chats after', unit: 'messages' },
          { key: 'tool_selection', title: 'Which tools the assistant sees' },
          { key: 'tool_result_max_chars', title: 'Longest tool result the assistant reads' },
        ]}
        title="Long chats"
        intro="What the assistant reads back each time it answers in a long chat."
        testId="chat-long-form"
      />
    </>
  );
}

export function TaskSettings() {
  return (
    <>
      <SchemaForm
        section={['tasks']}
        fields={[
          { key: 'require_plan_approval', title: 'Ask me to approve new task plans' },
          { key: 'resume_interrupted_runs', title: 'Continue interrupted runs after a restart' },
          { key: 'max_concurrent_runs', title: 'Tasks working at the same time', unit: 'runs' },
          { key: 'catch_up_window_hours', title: 'Catch up on a missed task when it is less late than' },
        ]}
        title="Tasks"
        intro="How tasks start and run."
        testId="tasks-form"
      />
      <SchemaForm
        section={['tasks']}
        fields={[
          { key: 'run_timeout_minutes', title: 'Check in after working for' },
          { key: 'max_tool_rounds', title: 'Check in after this many steps', unit: 'steps' },
          { key: 'max_questions_per_run', title: 'Most questions one run may ask you', unit: 'questions' },
          { key: 'max_cost_per_run_usd', title: 'Check in after spending', step: 0.5 },
          { key: 'stuck_after_minutes', title: 'A quiet run counts as stuck after' },
        ]}
        title="When a run checks in with you"
        intro="A long run stops and asks you whether to keep going once it reaches one of these."
        testId="tasks-limits-form"
      />
      <SchemaForm
        section={['tasks', 'continuity']}
        fields={[
          { key: 'enabled', title: 'Repeating tasks remember their earlier runs' },
          { key: 'runs', title: 'Earlier runs a repeating task is reminded of', unit: 'runs' },
          { key: 'triggered' },
        ]}
        title="Repeating tasks"
        intro="So a repeating task reports only what is new since last time."
        testId="tasks-continuity-form"
      />
    </>
  );
}

export function SafetySettings() {
  return (
    <>
      <SchemaForm
        section={['tools', 'approvals']}
        fields={[
          { key: 'mode', title: 'When to ask before acting' },
          { key: 'remember_session', title: 'Remember "Allow for this chat"' },
          { key: 'timeout_s', title: 'Wait for your answer for' },
        ]}
        title="Approvals"
        intro="When the assistant stops and asks you before it acts."
        testId="approvals-form"
      />
      <SchemaForm
        section={['tools']}
        fields={[{ key: 'repeated_call_limit', title: 'Stop a repeated step after', unit: 'times' }]}
        title="Safety"
        intro="Stops the assistant going round in circles."
        testId="safety-form"
      />
    </>
  );
}

/** One line on whether scripts can run on this computer, with what to do when they can't. */
function ScriptStatusLine() {
  const status = useSandboxStatus();
  if (status.isPending) return <p className="settings-status" aria-busy="true">Checking whether scripts can run here…</p>;
  if (status.isError) return <p className="settings-status" role="alert">{status.error.detail}</p>;
  const { enabled, python_version: python, backend, contained, note } = status.data;
  const checkAgain = (
    <button type="button" className="btn" onClick={() => void status.refetch()} disabled={status.isFetching}>
      {status.isFetching ? 'Checking…' : 'Check again'}
    </button>
  );
  if (backend === 'process' && !python)
    return (
      <p className="settings-status" role="alert" data-testid="scripts-status">
        Python 3 isn't installed on this computer, so scripts can't run. Install it (on Debian or Ubuntu: <code>sudo apt install python3</code>), then
        come back here. {checkAgain}
      </p>
    );
  if (note)
    // What to install or turn on, said by the engine; the command is the part after the colon.
    return (
      <p className="settings-status" role={contained ? undefined : 'alert'} data-testid="scripts-status">
        {note} {checkAgain}
      </p>
    );
  const where =
    backend === 'docker'
      ? 'Scripts run in a Docker container with only their own folder.'
      : `Scripts run with Python ${python} inside bubblewrap: they see only their own folder, none of your files, and have no network.`;
  return (
    <p className="settings-status" data-testid="scripts-status">
      {enabled ? where : `Scripts are off. ${where.replace('Scripts run', 'When on, scripts run')}`}
    </p>
  );
}

export function ScriptSettings() {
  return (
    <>
      <ScriptStatusLine />
      <SchemaForm
        section={['sandbox']}
        fields={[
          { key: 'enabled', title: 'Let the assistant write and run short Python scripts' },
          { key: 'backend', title: 'Where scripts run' },
          { key: 'timeout_s', title: 'Stop a script after' },
          { key: 'max_tool_calls', title: 'Most tool uses in one script', unit: 'tool uses' },
          { key: 'max_concurrent_runs', title: 'Scripts running at the same time', unit: 'scripts' },
        ]}
        title="Scripts"
        intro="Scripts run with Python 3 in a folder of their own, without your keys, and may only look things up with the assistant's tools."
        testId="scripts-form"
      />
      <SchemaForm
        section={['sandbox']}
        fields={[
          { key: 'max_output_chars', title: 'Most output kept from one script', unit: 'characters' },
          { key: 'max_files', title: 'Most files saved from one script', unit: 'files' },
          { key: 'max_file_mb', title: 'Largest file saved' },
          { key: 'keep_workdirs', title: "Keep each script's working folder" },
        ]}
        title="Output and files"
        intro="What a script leaves behind: files it saves go to your files folder under outputs/."
        testId="scripts-output-form"
      />
      <SchemaForm
        section={['sandbox']}
        fields={[
          { key: 'memory_mb', title: 'Most memory one script may use', unit: 'MB' },
          { key: 'max_processes', title: 'Most processes one script may run', unit: 'processes' },
          { key: 'max_file_size_mb', title: 'Largest file a script may write', unit: 'MB' },
          { key: 'allow_uncontained', title: "Run scripts uncontained when they can't be contained" },
        ]}
        title="Containment"
        intro="On this computer scripts run inside bubblewrap: the system read-only, their own folder the only place they can write, no home folder and no network. Running them uncontained lets a script read your files and reach the internet."
        testId="scripts-containment-form"
      />
      <SchemaForm
        section={['sandbox']}
        fields={[
          { key: 'docker_image', title: 'Container image' },
          { key: 'docker_memory_mb', title: 'Memory for a script in Docker', unit: 'MB' },
          { key: 'docker_cpus', title: 'Processor cores for a script in Docker', unit: 'cores' },
          { key: 'allow_network_in_docker', title: 'Let scripts in Docker reach the internet' },
        ]}
        title="Docker"
        intro="Used when Where scripts run is Docker, or Auto and Docker is running."
        testId="scripts-docker-form"
      />
    </>
  );
}
