// The notifications feed against the fake engine: day groups in time order, mark read on
// open and all at once, delete and clear all, answer a question and approve a plan in place,
// links to the task and run, live events, and the sidebar's unread badge.
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../App';
import { ApiError } from '../../api/errors';
import type { Notification } from '../../api';
import { fakeApi, makeBootstrap, makeNotification, makeRun, makeTask } from '../../test/fakes';
import { renderWithApi } from '../../test/render';
import { dayLabel, groupByDay, pendingAsk, taskDeleted, taskHref } from './feed';
import { EMPTY_WORDS } from './NotificationsPage';

function at(daysAgo: number, hour: number): string {
  const now = new Date();
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - daysAgo, hour, 0, 0).toISOString();
}

function setup(list: Notification[] = [], page = '#/notifications') {
  window.location.hash = page;
  const engine = fakeApi({ ...makeBootstrap(), unread_notifications: list.filter((n) => !n.read).length });
  engine.setNotifications(list);
  const view = renderWithApi(<App />, engine.api);
  return { engine, ...view };
}

afterEach(() => {
  window.location.hash = '';
});

const titles = (el: HTMLElement) => within(el).getAllByTestId('notification').map((n) => n.querySelector('.notification-title')?.textContent);

describe('feed layout', () => {
  it('groups by day, newest day first, and keeps time order within a day whatever is read', () => {
    const now = new Date(2030, 4, 4, 15, 0, 0);
    const day = (d: number, h: number) => new Date(2030, 4, d, h, 0, 0).toISOString();
    const groups = groupByDay(
      [
        makeNotification({ id: 'a', title: 'Read today late', read: true, created_at: day(4, 14) }),
        makeNotification({ id: 'b', title: 'Unread today early', created_at: day(4, 9) }),
        makeNotification({ id: 'c', title: 'Yesterday', created_at: day(3, 9) }),
        makeNotification({ id: 'd', title: 'Older', created_at: day(1, 9) }),
        makeNotification({ id: 'e', title: 'Unread today late', created_at: day(4, 13) }),
      ],
      now,
    );
    expect(groups.map((g) => g.label)).toEqual(['Today', 'Yesterday', dayLabel(day(1, 9), now)]);
    expect(groups[0].items.map((n) => n.id)).toEqual(['a', 'e', 'b']);
    expect(dayLabel(day(1, 9), now)).toMatch(/1/);
  });

  it('links task notifications to the task and run, and knows what is still asked', () => {
    const q = makeNotification({ id: 'q', kind: 'task', task_id: 't1', payload: { task_id: 't1', event: 'question', run_id: 'r1' } });
    expect(taskHref(q)).toBe('#/tasks/t1/runs/r1');
    expect(pendingAsk(q)).toBe('question');
    expect(pendingAsk({ ...q, payload: { ...q.payload, status: 'answered' } })).toBeNull();
    const plan = makeNotification({ id: 'p', kind: 'task', task_id: 't2', payload: { task_id: 't2', event: 'approval_needed' } });
    expect(taskHref(plan)).toBe('#/tasks/t2');
    expect(pendingAsk(plan)).toBe('approval');
    expect(taskHref(makeNotification({ id: 'i' }))).toBeNull();
    // A deleted task's notification leads nowhere and asks nothing.
    const gone = { ...plan, payload: { ...plan.payload, task_deleted: true } };
    expect(taskDeleted(gone)).toBe(true);
    expect(taskHref(gone)).toBeNull();
    expect(pendingAsk(gone)).toBeNull();
  });
});

describe('Notifications page', () => {
  it('shows the empty words when there is nothing', async () => {
    setup();
    expect(await screen.findByText(EMPTY_WORDS)).toBeInTheDocument();
  });

  it('shows loading while the feed is on its way', async () => {
    window.location.hash = '#/notifications';
    const engine = fakeApi(makeBootstrap());
    engine.api.listNotifications.mockImplementation(() => new Promise(() => {}));
    renderWithApi(<App />, engine.api);
    expect(await screen.findByText('Loading notifications…')).toBeInTheDocument();
  });

  it('says so when the feed cannot be read, and tries again', async () => {
    window.location.hash = '#/notifications';
    const engine = fakeApi(makeBootstrap());
    engine.api.listNotifications.mockRejectedValueOnce(new ApiError(500, 'The store is locked.'));
    renderWithApi(<App />, engine.api);
    expect(await screen.findByText("Couldn't load your notifications. The store is locked.")).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText(EMPTY_WORDS)).toBeInTheDocument();
  });

  it('groups the feed by day in time order, and marks one read when opened without moving it', async () => {
    const { engine } = setup([
      makeNotification({ id: 'n1', title: 'Old read one', read: true, created_at: at(0, 8) }),
      makeNotification({ id: 'n2', title: 'New unread one', message: 'The details.', created_at: at(0, 7) }),
      makeNotification({ id: 'n3', title: 'From yesterday', created_at: at(1, 10) }),
    ]);
    const days = await screen.findAllByTestId('notification-day');
    expect(days.map((d) => d.querySelector('h2')?.textContent)).toEqual(['Today', 'Yesterday']);
    expect(titles(days[0])).toEqual(['Old read one', 'New unread one']);
    expect(within(screen.getByRole('navigation', { name: 'Main' })).getByLabelText('2 unread')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'New unread one' }));
    expect(screen.getByText('The details.')).toBeInTheDocument();
    expect(engine.api.readNotification).toHaveBeenCalledWith('n2');
    await waitFor(() => expect(within(screen.getByRole('navigation', { name: 'Main' })).getByLabelText('1 unread')).toBeInTheDocument());
    expect(screen.getByTestId('notification-unread')).toHaveTextContent('1 unread');
    expect(titles(screen.getAllByTestId('notification-day')[0])).toEqual(['Old read one', 'New unread one']);
  });

  it('keeps 04:15 above 04:06 when 04:15 is read', async () => {
    const today = (h: number, m: number) => {
      const now = new Date();
      return new Date(now.getFullYear(), now.getMonth(), now.getDate(), h, m, 0).toISOString();
    };
    const { engine } = setup([
      makeNotification({ id: 'early', title: 'Task failed: Digest', created_at: today(4, 6) }),
      makeNotification({ id: 'late', title: 'Task completed: News', created_at: today(4, 15) }),
    ]);
    const day = (await screen.findAllByTestId('notification-day'))[0];
    expect(titles(day)).toEqual(['Task completed: News', 'Task failed: Digest']);
    await userEvent.click(screen.getByRole('button', { name: 'Task completed: News' }));
    expect(engine.api.readNotification).toHaveBeenCalledWith('late');
    await waitFor(() => expect(screen.getAllByTestId('notification')[0]).toHaveAttribute('data-read', 'true'));
    expect(titles(screen.getAllByTestId('notification-day')[0])).toEqual(['Task completed: News', 'Task failed: Digest']);
  });

  it("says a deleted task's notice is about a deleted task and offers nothing for it", async () => {
    setup([
      makeNotification({
        id: 'gone',
        kind: 'task',
        task_id: 't9',
        title: "Couldn't plan News digest",
        message: 'The planner model answered in the wrong shape.',
        read: true,
        created_at: at(0, 9),
        payload: { task_id: 't9', event: 'planning_failed', task_deleted: true },
      }),
      makeNotification({
        id: 'plan',
        kind: 'task',
        task_id: 't8',
        title: 'Digest needs your approval',
        created_at: at(0, 8),
        payload: { task_id: 't8', event: 'approval_needed', task_deleted: true },
      }),
      makeNotification({
        id: 'fixed',
        kind: 'task',
        task_id: 't7',
        title: "Couldn't plan Weather",
        read: true,
        created_at: at(0, 7),
        payload: { task_id: 't7', event: 'planning_failed', status: 'fixed' },
      }),
    ]);
    const [gone, plan, fixed] = await screen.findAllByTestId('notification');
    expect(within(gone).getByTestId('notification-status')).toHaveTextContent('Task deleted');
    expect(within(gone).queryByRole('link')).toBeNull();
    await userEvent.click(within(gone).getByRole('button', { name: "Couldn't plan News digest" }));
    expect(within(gone).getByText(/This task was deleted/)).toBeInTheDocument();
    expect(within(gone).queryByRole('button', { name: 'Try again' })).toBeNull();
    // A plan of a deleted task can't be approved.
    expect(within(plan).queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(within(plan).queryByRole('link')).toBeNull();
    // A task that got a plan since: its "Couldn't plan" says Fixed.
    expect(within(fixed).getByTestId('notification-status')).toHaveTextContent('Fixed');
  });

  it('marks all read, deletes one, and clears all after a confirm', async () => {
    const { engine } = setup([
      makeNotification({ id: 'n1', title: 'First', created_at: at(0, 9) }),
      makeNotification({ id: 'n2', title: 'Second', created_at: at(0, 8) }),
    ]);
    await screen.findByText('First');
    await userEvent.click(screen.getByRole('button', { name: 'Mark all as read' }));
    expect(engine.api.readAllNotifications).toHaveBeenCalled();
    await waitFor(() => expect(screen.getByTestId('notification-unread')).toHaveTextContent('All read'));
    expect(within(screen.getByRole('navigation', { name: 'Main' })).queryByLabelText(/unread/)).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Delete "First"' }));
    expect(engine.api.deleteNotification).toHaveBeenCalledWith('n1');
    await waitFor(() => expect(screen.queryByText('First')).toBeNull());

    await userEvent.click(screen.getByRole('button', { name: 'Clear all' }));
    expect(engine.api.deleteAllNotifications).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Yes, clear all' }));
    expect(engine.api.deleteAllNotifications).toHaveBeenCalled();
    expect(await screen.findByText(EMPTY_WORDS)).toBeInTheDocument();
  });

  it('answers a question in place with an option or own words, and shows it answered', async () => {
    const { engine } = setup([
      makeNotification({
        id: 'q1',
        kind: 'task',
        title: 'Flights needs your answer',
        message: 'Which flight?',
        task_id: 't1',
        payload: { task_id: 't1', event: 'question', run_id: 'r1', question: 'Which flight?', options: ['Morning', 'Evening'] },
      }),
      makeNotification({
        id: 'q2',
        kind: 'task',
        title: 'Hotel needs your answer',
        message: 'Which hotel?',
        task_id: 't2',
        payload: { task_id: 't2', event: 'question', run_id: 'r9', question: 'Which hotel?' },
      }),
    ]);
    engine.setTasks([
      makeTask({ task_id: 't1', status: 'waiting_for_user', runs: [makeRun({ run_id: 'r1', status: 'waiting_for_user' })] }),
      makeTask({ task_id: 't2', status: 'waiting_for_user', runs: [makeRun({ run_id: 'r9', status: 'waiting_for_user' })] }),
    ]);
    const first = (await screen.findByText('Flights needs your answer')).closest('li') as HTMLElement;
    await userEvent.click(within(first).getByRole('button', { name: 'Evening' }));
    expect(engine.api.answerRun).toHaveBeenCalledWith('t1', 'r1', 'Evening');
    expect(await within(first).findByText('Answered')).toBeInTheDocument();
    expect(engine.api.readNotification).toHaveBeenCalledWith('q1');

    const second = screen.getByText('Hotel needs your answer').closest('li') as HTMLElement;
    await userEvent.type(within(second).getByRole('textbox', { name: 'Your answer' }), 'The one by the sea');
    await userEvent.click(within(second).getByRole('button', { name: 'Answer' }));
    expect(engine.api.answerRun).toHaveBeenCalledWith('t2', 'r9', 'The one by the sea');

    // The engine settles the notification: the answered state comes from its payload.
    act(() =>
      engine.emit(
        'notification.updated',
        makeNotification({
          id: 'q2',
          kind: 'task',
          title: 'Hotel needs your answer',
          read: true,
          task_id: 't2',
          payload: { task_id: 't2', event: 'question', run_id: 'r9', status: 'answered' },
        }),
      ),
    );
    const settled = screen.getByText('Hotel needs your answer').closest('li') as HTMLElement;
    expect(await within(settled).findByTestId('notification-status')).toHaveTextContent('Answered');
    expect(within(settled).queryByRole('textbox')).toBeNull();
  });

  it('approves and declines plans in place; settled ones show how', async () => {
    const plan = (id: string, task: string, status?: string) =>
      makeNotification({
        id,
        kind: 'task',
        title: `${task} needs your approval`,
        message: `${task}, please.\n\n1. Do it`,
        task_id: task,
        read: !!status,
        payload: { task_id: task, event: 'approval_needed', ...(status ? { status } : {}) },
      });
    const { engine } = setup([plan('p1', 'Shopping'), plan('p2', 'Laundry'), plan('p3', 'Taxes', 'declined')]);
    engine.setTasks([makeTask({ task_id: 'Shopping', status: 'approval_pending' }), makeTask({ task_id: 'Laundry', status: 'approval_pending' })]);
    const shopping = (await screen.findByText('Shopping needs your approval')).closest('li') as HTMLElement;
    expect(within(shopping).getByText(/1\. Do it/)).toBeInTheDocument();
    await userEvent.click(within(shopping).getByRole('button', { name: 'Approve' }));
    expect(engine.api.approveTask).toHaveBeenCalledWith('Shopping');
    expect(await within(shopping).findByText('Approved')).toBeInTheDocument();

    const laundry = screen.getByText('Laundry needs your approval').closest('li') as HTMLElement;
    await userEvent.click(within(laundry).getByRole('button', { name: 'Decline' }));
    expect(engine.api.declineTask).toHaveBeenCalledWith('Laundry');
    expect(await within(laundry).findByText('Declined')).toBeInTheDocument();

    const taxes = screen.getByText('Taxes needs your approval').closest('li') as HTMLElement;
    expect(within(taxes).getByTestId('notification-status')).toHaveTextContent('Declined');
    expect(within(taxes).queryByRole('button', { name: 'Approve' })).toBeNull();
  });

  it('shows a failed answer and keeps the question open', async () => {
    const { engine } = setup([
      makeNotification({ id: 'q1', kind: 'task', title: 'Q', task_id: 't1', payload: { task_id: 't1', event: 'question', run_id: 'r1', options: ['Yes'] } }),
    ]);
    engine.api.answerRun.mockRejectedValueOnce(new ApiError(409, 'That run is no longer waiting for an answer.'));
    await userEvent.click(await screen.findByRole('button', { name: 'Yes' }));
    expect(await screen.findByText(/That run is no longer waiting for an answer\./)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Yes' })).toBeInTheDocument();
  });

  it('opens the task and its run on the Tasks page from the link', async () => {
    const { engine } = setup([
      makeNotification({ id: 'f1', kind: 'task', title: 'Digest failed', task_id: 't1', payload: { task_id: 't1', event: 'run_failed', run_id: 'r2' } }),
    ]);
    engine.setTasks([
      makeTask({
        task_id: 't1',
        name: 'Digest',
        status: 'error',
        runs: [makeRun({ run_id: 'r1', status: 'completed' }), makeRun({ run_id: 'r2', status: 'error' })],
      }),
    ]);
    const link = await screen.findByRole('link', { name: 'Open the run' });
    expect(link).toHaveAttribute('href', '#/tasks/t1/runs/r2');
    await userEvent.click(link);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
    const detail = await screen.findByTestId('task-detail');
    expect(within(detail).getByRole('heading', { name: 'Digest' })).toBeInTheDocument();
    await waitFor(() => expect(detail.querySelector('[data-run-id="r2"]')).toHaveAttribute('aria-current', 'true'));
    expect(detail.querySelector('[data-run-id="r1"]')).not.toHaveAttribute('aria-current');
    expect(engine.api.readNotification).toHaveBeenCalledWith('f1');
  });

  it('follows notification events live: new, read, deleted', async () => {
    const { engine } = setup([makeNotification({ id: 'n1', title: 'Already here', created_at: at(0, 8) })]);
    await screen.findByText('Already here');
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByLabelText('1 unread')).toBeInTheDocument();

    act(() => engine.emit('notification.new', makeNotification({ id: 'n2', title: 'Just arrived', created_at: at(0, 9) })));
    expect(await screen.findByText('Just arrived')).toBeInTheDocument();
    expect(await within(nav).findByLabelText('2 unread')).toBeInTheDocument();
    // The same one again (the call's answer and the event) is counted once.
    act(() => engine.emit('notification.new', makeNotification({ id: 'n2', title: 'Just arrived', created_at: at(0, 9) })));
    await new Promise((r) => setTimeout(r, 20));
    expect(within(nav).getByLabelText('2 unread')).toBeInTheDocument();

    act(() => engine.emit('notification.read', { id: 'n1' }));
    expect(await within(nav).findByLabelText('1 unread')).toBeInTheDocument();
    act(() => engine.emit('notification.deleted', { id: 'n2' }));
    await waitFor(() => expect(screen.queryByText('Just arrived')).toBeNull());
    expect(within(nav).queryByLabelText(/unread/)).toBeNull();
    act(() => engine.emit('notification.deleted', { id: null }));
    expect(await screen.findByText(EMPTY_WORDS)).toBeInTheDocument();
  });

  it('keeps the sidebar badge live on other pages too', async () => {
    const { engine } = setup([makeNotification({ id: 'n1' })], '#/tasks');
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    expect(await within(nav).findByLabelText('1 unread')).toBeInTheDocument();
    act(() => engine.emit('notification.new', makeNotification({ id: 'n2', created_at: at(0, 9) })));
    await waitFor(() => expect(within(nav).getByLabelText('2 unread')).toBeInTheDocument());
    act(() => engine.emit('notification.read', { id: null }));
    await waitFor(() => expect(within(nav).queryByLabelText(/unread/)).toBeNull());
  });
});
