// A run waiting for you: its question, a button per offered answer, or your own words.
import { useState } from 'react';
import type { Run } from '../../../api';
import type { useTaskAction } from '../queries';

type Action = ReturnType<typeof useTaskAction>;

const TITLES: Record<string, string> = {
  question: 'Sentient needs your answer',
  limit: 'This run reached its limit',
  stuck: 'Sentient is stuck',
};

export function QuestionCard({ run, action }: { run: Run; action: Action }) {
  const [text, setText] = useState('');
  const q = run.pending_question;
  if (!q) return null;
  const answer = (words: string) => action.mutate({ kind: 'answer-run', runId: run.run_id, answer: words });
  return (
    <section className="question-card" role="group" aria-label="Question from the task" data-testid="question-card">
      <p className="question-title">
        <strong>{TITLES[q.kind] ?? TITLES.question}</strong>
      </p>
      <p className="question-text">{q.question}</p>
      {q.reason && q.kind === 'stuck' ? <p className="muted">Why: {q.reason}</p> : null}
      {q.options.length > 0 ? (
        <div className="task-actions">
          {q.options.map((o) => (
            <button key={o} type="button" className="btn" disabled={action.isPending} onClick={() => answer(o)}>
              {o}
            </button>
          ))}
        </div>
      ) : null}
      <form
        className="task-chat-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim()) answer(text.trim());
        }}
      >
        <input aria-label="Your answer" placeholder={q.options.length > 0 ? 'Or answer in your own words' : 'Your answer'} value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit" className="btn btn-primary" disabled={!text.trim() || action.isPending}>
          Answer
        </button>
      </form>
      <button
        type="button"
        className="btn btn-quiet"
        disabled={action.isPending}
        onClick={() => action.mutate({ kind: 'cancel-run', runId: run.run_id })}
      >
        Cancel this run
      </button>
    </section>
  );
}
