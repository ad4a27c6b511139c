begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: chain a -> b -> c, max_attempts 1; a completes, b fails, c is cancelled
select pgflow.create_flow('f', max_attempts => 1);
select pgflow.add_step('f', 'a');
select pgflow.add_step('f', 'b', array['a']);
select pgflow.add_step('f', 'c', array['b']);
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'f', 'x');
select run_id from pgflow.start_flow('f', '{}'::jsonb) \gset
select count(*) from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select pgflow.complete_task(:'run_id', 'a', 0, '1'::jsonb, 1);
select count(*) from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select pgflow.fail_task(:'run_id', 'b', 0, 'boom', 1);
select max(id) as last_event from pgflow.run_events \gset

-- TEST: the retry writes step:reset (from failed / cancelled), run:retried, step:started, all
-- attributed to the actor with the reason
select * from pgflow.retry_run(:'run_id', 'alice', 'b is fixed');
select results_eq(
  format($$select step_slug, event, actor, reason, details from pgflow.run_events
           where run_id = %L and id > %s order by min(id) over (partition by event), step_slug$$, :'run_id', :'last_event'),
  $$values ('b'::text, 'step:reset'::text, 'alice'::text, 'b is fixed'::text, '{"from": "failed"}'::jsonb),
           ('c', 'step:reset', 'alice', 'b is fixed', '{"from": "cancelled"}'::jsonb),
           (null, 'run:retried', 'alice', 'b is fixed', null),
           ('b', 'step:started', 'alice', 'b is fixed', null)$$,
  'step:reset b (from failed), step:reset c (from cancelled), run:retried, step:started b: actor alice, reason given'
);
select is(
  (select count(*)::int from pgflow.run_events where run_id = :'run_id' and step_slug = 'a' and id > :'last_event'),
  0,
  'the completed step a has no event'
);

-- TEST: the actor is not left set for the rest of the transaction
select is(coalesce(current_setting('pgflow.actor', true), ''), '', 'pgflow.actor is unset again after the call');
select is(coalesce(current_setting('pgflow.reason', true), ''), '', 'pgflow.reason is unset again after the call');
select max(id) as after_retry from pgflow.run_events \gset
select attempts_count as b_attempt
from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null) \gset
select pgflow.complete_task(:'run_id', 'b', 0, '2'::jsonb, :b_attempt);
select results_eq(
  format($$select step_slug, event, actor, reason from pgflow.run_events
           where run_id = %L and id > %s order by id$$, :'run_id', :'after_retry'),
  $$values ('b'::text, 'step:completed'::text, 'worker:11111111-1111-1111-1111-111111111111'::text, null::text),
           ('c', 'step:started', 'worker:11111111-1111-1111-1111-111111111111', null)$$,
  'the worker''s later report is attributed to the worker, without the retry''s reason'
);

-- TEST: an actor set by the caller for the transaction is kept after the call
select set_config('pgflow.actor', 'outer', true), set_config('pgflow.reason', 'outer reason', true);
select attempts_count as c_attempt
from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null) \gset
select pgflow.fail_task(:'run_id', 'c', 0, 'c broke', :c_attempt);
select * from pgflow.retry_run(:'run_id', 'bob', null);
select results_eq(
  format($$select event, actor, reason from pgflow.run_events
           where run_id = %L and event = 'run:retried' order by id$$, :'run_id'),
  $$values ('run:retried'::text, 'alice'::text, 'b is fixed'::text), ('run:retried', 'bob', null)$$,
  'the second retry is attributed to bob with no reason (NULL reason is not the caller''s)'
);
select is(
  array[current_setting('pgflow.actor', true), current_setting('pgflow.reason', true)],
  array['outer', 'outer reason'],
  'the caller''s pgflow.actor and pgflow.reason are set back after the call'
);

select * from finish();
rollback;
