begin;
select plan(12);
select pgflow_tests.reset_db();

-- SETUP: roots waiting (queued), busy (started), done (completed) and after (depends on
-- the three: created); a second run of the same flow, queued, that cancel_run must not touch
select pgflow.create_flow('four', max_attempts => 1);
select pgflow.add_step('four', 'waiting');
select pgflow.add_step('four', 'busy');
select pgflow.add_step('four', 'done');
select pgflow.add_step('four', 'after', array['waiting', 'busy', 'done']);
select run_id as run from pgflow.start_flow('four', '{}'::jsonb) \gset
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'four', 'x');
select count(*) from pgflow.read_and_start_tasks('four', '11111111-1111-1111-1111-111111111111', 10, 30,
                                                 array['busy', 'done']);
select count(*) from pgflow.complete_task(:'run', 'done', 0, '"d"'::jsonb, 1);
select run_id as other from pgflow.start_flow('four', '{}'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run', 'waiting') as waiting_msg,
       pgflow_tests.task_msg_id(:'run', 'busy') as busy_msg \gset
select jsonb_build_object(
  'step', (select to_jsonb(s) from pgflow.step_states as s where s.run_id = :'run' and s.step_slug = 'done'),
  'task', (select to_jsonb(t) from pgflow.step_tasks as t where t.run_id = :'run' and t.step_slug = 'done')
) as done_before \gset
select coalesce(max(id), 0) as last_event from pgflow.run_events \gset

-- TEST: cancel_run returns one row: the run, cancelled, changed
select results_eq(
  format($$select * from pgflow.cancel_run(%L, 'alice', 'wrong input')$$, :'run'),
  format($$values (%L::uuid, 'cancelled'::text, true, null::text)$$, :'run'),
  'cancel_run returns (run_id, cancelled, true, NULL)'
);

-- TEST: the run is cancelled (cancelled_at now), no other end stamped
select results_eq(
  format($$select status, cancelled_at = now(), paused_at, completed_at, failed_at
           from pgflow.runs where run_id = %L$$, :'run'),
  $$values ('cancelled'::text, true, null::timestamptz, null::timestamptz, null::timestamptz)$$,
  'the run is cancelled with cancelled_at now; paused_at, completed_at, failed_at stay NULL'
);

-- TEST: created and started steps are cancelled; the completed one is untouched
select results_eq(
  format($$select step_slug, status, cancelled_at is not distinct from now()
           from pgflow.step_states where run_id = %L order by step_slug$$, :'run'),
  $$values ('after'::text, 'cancelled'::text, true), ('busy', 'cancelled', true),
           ('done', 'completed', false), ('waiting', 'cancelled', true)$$,
  'the created step (after) and the started steps (busy, waiting) are cancelled; done stays completed'
);

-- TEST: queued and started tasks are cancelled; the completed one is untouched
select results_eq(
  format($$select step_slug, status, cancelled_at is not distinct from now()
           from pgflow.step_tasks where run_id = %L order by step_slug$$, :'run'),
  $$values ('busy'::text, 'cancelled'::text, true), ('done', 'completed', false), ('waiting', 'cancelled', true)$$,
  'the started task (busy) and the queued task (waiting) are cancelled; done stays completed'
);
select is(
  jsonb_build_object(
    'step', (select to_jsonb(s) from pgflow.step_states as s where s.run_id = :'run' and s.step_slug = 'done'),
    'task', (select to_jsonb(t) from pgflow.step_tasks as t where t.run_id = :'run' and t.step_slug = 'done')),
  :'done_before'::jsonb,
  'the completed step and task are exactly as they were'
);

-- TEST: the messages of the cancelled tasks left the queue for the archive
select is(
  (select count(*) from pgmq.q_four where message ->> 'run_id' = :'run'),
  0::bigint, 'no message of the cancelled run is left in the queue');
select ok(pgflow_tests.message_exists('four', :waiting_msg::bigint, 'a'), 'the queued task''s message is archived');
select ok(pgflow_tests.message_exists('four', :busy_msg::bigint, 'a'), 'the started task''s message is archived');

-- TEST: run:cancelled and step:cancelled, with the actor and reason given, and nothing else
select results_eq(
  format($$select event, step_slug, task_index, actor, reason from pgflow.run_events
           where run_id = %L and id > %s order by event, step_slug$$, :'run', :last_event),
  $$values ('run:cancelled'::text, null::text, null::int, 'alice'::text, 'wrong input'::text),
           ('step:cancelled', 'after', null, 'alice', 'wrong input'),
           ('step:cancelled', 'busy', null, 'alice', 'wrong input'),
           ('step:cancelled', 'waiting', null, 'alice', 'wrong input')$$,
  'events: run:cancelled and one step:cancelled per cancelled step, by alice for wrong input'
);

-- TEST: the other run of the flow is untouched
select results_eq(
  format($$select r.status, (select array_agg(t.status order by t.step_slug) from pgflow.step_tasks as t where t.run_id = r.run_id),
                  (select count(*) from pgmq.q_four as q where q.message ->> 'run_id' = %1$L)
           from pgflow.runs as r where r.run_id = %1$L$$, :'other'),
  $$values ('started'::text, array['queued', 'queued', 'queued']::text[], 3::bigint)$$,
  'another run of the flow stays started with its three queued tasks and their messages'
);
select is(
  (select count(*) from pgflow.run_events where run_id = :'other' and id > :last_event),
  0::bigint, 'and has no new event');

-- TEST: the actor is set back: a later statement of the transaction is not alice's
select run_id as third from pgflow.start_flow('four', '{}'::jsonb) \gset
select results_eq(
  format($$select actor, reason from pgflow.run_events where run_id = %L and event = 'run:started'$$, :'third'),
  $$values ('app'::text, null::text)$$,
  'a run started after cancel_run in the same transaction is recorded as app, without reason'
);

select * from finish();
rollback;
