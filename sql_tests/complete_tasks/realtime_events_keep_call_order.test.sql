begin;
select plan(2);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: two_roots with both roots started
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('two_roots', 30, 10);
delete from realtime.messages;

-- TEST: with realtime on, events come out as from complete_task called per item in order
select results_eq(
  format($$select step_slug, status from pgflow.complete_tasks(array[%L, %L]::uuid[],
      array['root_b', 'root_a'], array[0, 0], array['1', '2']::jsonb[])$$, :'run_id', :'run_id'),
  $$values ('root_b'::text, 'completed'::text), ('root_a', 'completed')$$,
  'both complete'
);
select is(
  pgflow_tests.run_events(:'run_id'),
  array['step:root_b:completed', 'step:root_a:completed', 'step:last:started'],
  'step events in item order, then the child start'
);

select * from finish();
rollback;
