-- A task's generation: every change a person makes that settles what planning would produce
-- (plan, schedule or status, approve, decline, archive, Run now, answers, a change request)
-- bumps it. Planning remembers the generation it started from and writes its outcome only
-- while the row still holds it, checked in the writing statement itself.
ALTER TABLE tasks ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
