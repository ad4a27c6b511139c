begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: chain a -> b -> c, max_attempts 1; a completes, b fails
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
select pgflow.fail_task(:'run_id', 'b', 0, 'first failure', 1);

-- SETUP: first retry, b fails again (its one attempt of the new budget)
select * from pgflow.retry_run(:'run_id', 'alice', 'try again');
select results_eq(
  $$select step_slug, attempts_count from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null)$$,
  $$values ('b'::text, 2)$$,
  'after the first retry b is claimed at attempt 2'
);
select pgflow.fail_task(:'run_id', 'b', 0, 'second failure', 2);

-- TEST: the run failed again, c cancelled again
select results_eq(
  format($$select status, failed_at is not null, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, true, 2)$$,
  'the second failure fails the run again (remaining_steps still 2)'
);
select results_eq(
  format($$select step_slug, status, error_message from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('a'::text, 'completed'::text, null::text), ('b', 'failed', 'second failure'), ('c', 'cancelled', null)$$,
  'b failed with the new error, c cancelled'
);

-- TEST: the second retry works the same way
select results_eq(
  format($$select status, changed from pgflow.retry_run(%L, 'bob', 'fixed for real')$$, :'run_id'),
  $$values ('started'::text, true)$$,
  'the second retry_run starts the run again'
);
select results_eq(
  $$select step_slug, attempts_count from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null)$$,
  $$values ('b'::text, 3)$$,
  'b is claimed at attempt 3 (the numbering goes on; fresh budget of 1)'
);
select pgflow.complete_task(:'run_id', 'b', 0, '2'::jsonb, 3);
select results_eq(
  $$select step_slug, input from pgflow.read_and_start_tasks('f', '11111111-1111-1111-1111-111111111111', 10, 30, null)$$,
  $$values ('c'::text, '{"b": 2}'::jsonb)$$,
  'then c runs with b''s output'
);
select pgflow.complete_task(:'run_id', 'c', 0, '3'::jsonb, 1);

-- TEST: the run completes
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"c": 3}'::jsonb)$$,
  'the run completes'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'a'),
  1,
  'a ran once in all'
);

-- TEST: the audit trail shows both failures and both retries, in order, with their actors
select results_eq(
  format($$select event, actor, reason from pgflow.run_events
           where run_id = %L and step_slug is null order by id$$, :'run_id'),
  $$values ('run:started'::text, 'app'::text, null::text),
           ('run:failed', 'worker:11111111-1111-1111-1111-111111111111', null),
           ('run:retried', 'alice', 'try again'),
           ('run:failed', 'worker:11111111-1111-1111-1111-111111111111', null),
           ('run:retried', 'bob', 'fixed for real'),
           ('run:completed', 'worker:11111111-1111-1111-1111-111111111111', null)$$,
  'run events: started, failed, retried (alice), failed, retried (bob), completed'
);

select * from finish();
rollback;
