begin;
select plan(6);

-- Two root steps; b fails the run while a's handler (attempt 1) is still running.
select pgflow.create_flow('late_retry', max_attempts => 2, base_delay => 0);
select pgflow.add_step('late_retry', 'a');
select pgflow.add_step('late_retry', 'b');
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'late_retry', 'old'),
       ('22222222-2222-2222-2222-222222222222', 'late_retry', 'new');
select run_id as run from pgflow.start_flow('late_retry', '{}') \gset
select count(*) from pgflow.read_and_start_tasks('late_retry', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select * from pgflow.fail_tasks(array[:'run'::uuid], array['b'], array[0], array['boom'], array[1], array[true]);

select * from pgflow.retry_run(:'run', 'alice', 'fixed');

-- TEST: the new tasks go on with the attempt numbers of the old ones
select results_eq(
  $$select step_slug, status, attempts_count, attempt_offset from pgflow.step_tasks
    where run_id = '$$ || :'run' || $$' order by step_slug$$,
  $$values ('a'::text, 'queued'::text, 1, 1), ('b', 'queued', 1, 1)$$,
  'a and b are queued again at attempt 1 (offset 1): the next claim is attempt 2'
);
select results_eq(
  $$select step_slug, attempts_count from pgflow.read_and_start_tasks('late_retry',
      '22222222-2222-2222-2222-222222222222', 10, 30, null) order by step_slug$$,
  $$values ('a'::text, 2), ('b', 2)$$,
  'the new claim is attempt 2 of each'
);

-- TEST: the pre-retry handler of a reports attempt 1: ignored, nothing written
select results_eq(
  $$select outcome, reason from pgflow.complete_tasks(array['$$ || :'run' || $$'::uuid], array['a'],
      array[0], array['{"from": "pre-retry"}'::jsonb], array[1])$$,
  $$values ('ignored'::text, 'stale_attempt'::text)$$,
  'a report of attempt 1 after the retry is stale'
);
select is(
  (select status from pgflow.step_tasks where run_id = :'run' and step_slug = 'a'),
  'started', 'the new attempt still holds a'
);

-- TEST: the retry budget is fresh: b fails once more and is retried (max_attempts 2 after the offset)
select results_eq(
  $$select outcome from pgflow.fail_tasks(array['$$ || :'run' || $$'::uuid], array['b'], array[0],
      array['again'], array[2])$$,
  $$values ('retried'::text)$$,
  'attempt 2 (the first after the retry) failing is retried'
);
select is(
  (select status from pgflow.runs where run_id = :'run'),
  'started', 'the run goes on'
);

select * from finish();
rollback;
