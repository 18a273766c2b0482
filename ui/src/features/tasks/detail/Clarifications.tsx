// The planner's questions before it can plan: one box per question, sent together.
import { useState } from 'react';
import type { Task } from '../../../api';
import type { useTaskAction } from '../queries';

type Action = ReturnType<typeof useTaskAction>;

export function Clarifications({ task, action }: { task: Task; action: Action }) {
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const open = task.clarifying_questions.filter((q) => !q.answer);
  const questions = open.length > 0 ? open : task.clarifying_questions;
  const complete = questions.every((q) => (answers[q.question_id] ?? '').trim() !== '');
  return (
    <form
      className="task-section clarifications"
      aria-label="Questions before planning"
      onSubmit={(e) => {
        e.preventDefault();
        if (!complete) return;
        action.mutate({
          kind: 'clarifications',
          answers: questions.map((q) => ({ question_id: q.question_id, answer_text: answers[q.question_id].trim() })),
        });
      }}
    >
      <h3>Sentient needs a few answers before it can plan this</h3>
      {questions.map((q) => (
        <label key={q.question_id} className="field">
          <span className="field-label">{q.text}</span>
          <input value={answers[q.question_id] ?? ''} onChange={(e) => setAnswers((a) => ({ ...a, [q.question_id]: e.target.value }))} />
        </label>
      ))}
      <div className="task-actions">
        <button type="submit" className="btn btn-primary" disabled={!complete || action.isPending}>
          Send answers
        </button>
      </div>
    </form>
  );
}
