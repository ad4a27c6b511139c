begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: sequential run, first's task claimed (stuck); limit 1 kB from now on
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');
set local pgflow.max_payload_bytes = '1kB';
create temp table snapshot as
select (select jsonb_agg(to_jsonb(s) order by s.step_slug) from pgflow.step_states as s) as steps,
       (select jsonb_agg(to_jsonb(t) order by t.step_slug, t.task_index) from pgflow.step_tasks as t) as tasks,
       (select count(*) from pgflow.run_events) as events;

-- TEST: an output over the limit raises program_limit_exceeded
select throws_ok(
  format($$select * from pgflow.complete_step(%L, 'first', to_jsonb(repeat('x', 2000)), 'alice', null)$$, :'run_id'),
  '54000',
  format('Output of step first of run %s is %s bytes, over the limit of 1024 bytes (setting pgflow.max_payload_bytes)',
         :'run_id', pg_column_size(to_jsonb(repeat('x', 2000)))),
  'a 2 kB output raises 54000 naming the step, the run, the size and the limit'
);

-- TEST: nothing was written
select is((select jsonb_agg(to_jsonb(s) order by s.step_slug) from pgflow.step_states as s), (select steps from snapshot),
  'the step states are unchanged');
select is((select jsonb_agg(to_jsonb(t) order by t.step_slug, t.task_index) from pgflow.step_tasks as t),
  (select tasks from snapshot), 'the tasks are unchanged (first''s task still started)');
select is((select count(*) from pgflow.run_events), (select events from snapshot), 'no run_events row was written');

-- TEST: an output within the limit is accepted
select results_eq(
  format($$select changed from pgflow.complete_step(%L, 'first', to_jsonb(repeat('x', 500)), 'alice', null)$$, :'run_id'),
  $$values (true)$$,
  'a 0.5 kB output is accepted'
);
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'first'),
  'completed',
  'first is completed'
);

select * from finish();
rollback;
