begin;
select plan(3);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: two runs of a one-step flow, both tasks and steps completed; reported in order run 2, run 1
-- (the reverse of run_id order)
select pgflow.create_flow('one_step');
select pgflow.add_step('one_step', 'only');
select run_id as r1 from pgflow.start_flow('one_step', '{}'::jsonb, '00000000-0000-0000-0000-000000000001') \gset
select run_id as r2 from pgflow.start_flow('one_step', '{}'::jsonb, '00000000-0000-0000-0000-000000000002') \gset
select count(*) from pgflow_tests.read_and_start('one_step', 30, 2);
update pgflow.step_tasks set status = 'completed', completed_at = now(),
  output = case when run_id = :'r1' then '1'::jsonb else '2'::jsonb end;
update pgflow.step_states as ss set status = 'completed', completed_at = now(), remaining_tasks = 0,
  output = t.output
from pgflow.step_tasks as t where t.run_id = ss.run_id and t.step_slug = ss.step_slug;
delete from realtime.messages;
select pgflow._complete_steps(array[:'r2', :'r1']::uuid[], array['only', 'only'], array[1, 2]);

-- TEST: both steps and both runs complete in one call
select results_eq(
  format($$select ss.output, r.status, r.output from pgflow.step_states as ss join pgflow.runs as r using (run_id)
           order by ss.run_id = %L desc$$, :'r1'),
  $$values ('1'::jsonb, 'completed'::text, '{"only": 1}'::jsonb), ('2', 'completed', '{"only": 2}')$$,
  'each step completes with its own output, each run with its leaf output'
);

-- TEST: step:completed in report order, before run:completed
select is(
  (select array_agg(topic order by id) from realtime.messages where event = 'step:only:completed'),
  array['pgflow:run:' || :'r2', 'pgflow:run:' || :'r1'],
  'step:completed events follow report order (run 2 first), not run_id order'
);
select is(
  pgflow_tests.run_events(:'r1'),
  array['step:only:completed', 'run:completed'],
  'a run''s step:completed comes before its run:completed'
);

select * from finish();
rollback;
