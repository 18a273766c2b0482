// The Tasks page: a box to describe a new task on top, the tasks grouped by what they need on
// the left, and the open task on the right.
import { useState } from 'react';
import { Page } from '../../components/Page';
import { NewTaskForm } from './NewTaskForm';
import { NoTaskOpen } from './NoTaskOpen';
import { TaskDetail } from './TaskDetail';
import { TaskList } from './TaskList';
import './tasks.css';

export function TasksPage() {
  const [openId, setOpenId] = useState<string | null>(null);
  return (
    <Page title="Tasks" intro="Work you hand to Sentient, from a one-off errand to something that repeats.">
      <NewTaskForm onCreated={setOpenId} />
      <div className="tasks-layout">
        <TaskList openId={openId} onOpen={setOpenId} />
        {openId ? (
          <TaskDetail key={openId} taskId={openId} onClosed={() => setOpenId(null)} />
        ) : (
          <NoTaskOpen />
        )}
      </div>
    </Page>
  );
}
