begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: three runs of two_roots (root_a, root_b queued) and one of a second flow "solo"
select pgflow_tests.setup_flow('two_roots');
select pgflow.create_flow('solo', max_attempts => 1);
select pgflow.add_step('solo', 'only');
select run_id as r1 from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select run_id as r3 from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select run_id as s1 from pgflow.start_flow('solo', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'r1', 'root_a');

-- TEST: step_slugs NULL: every unfinished task of the run, no other run's
select pgflow._cancel_tasks(array[:'r1']::uuid[], null);
select results_eq(
  format($$select step_slug, status from pgflow.step_tasks where run_id = %L order by step_slug$$, :'r1'),
  $$values ('root_a'::text, 'cancelled'::text), ('root_b', 'cancelled')$$,
  'r1: started root_a and queued root_b cancelled'
);
select is((select count(*)::int from pgflow.step_tasks where run_id in (:'r2', :'r3', :'s1') and status = 'queued'), 5,
  'the tasks of r2, r3 and s1 are still queued');

-- TEST: a NULL element of step_slugs means every step of that run; runs of two flows in
-- one call archive each flow's messages in its own archive
select pgflow._cancel_tasks(array[:'r2', :'r3', :'s1']::uuid[], array['root_b', null, null]);
select results_eq(
  format($$select case run_id when %1$L then 'r2' when %2$L then 'r3' else 's1' end, step_slug, status
           from pgflow.step_tasks where run_id in (%1$L, %2$L, %3$L) order by 1, 2$$, :'r2', :'r3', :'s1'),
  $$values ('r2'::text, 'root_a'::text, 'queued'::text), ('r2', 'root_b', 'cancelled'),
           ('r3', 'root_a', 'cancelled'), ('r3', 'root_b', 'cancelled'), ('s1', 'only', 'cancelled')$$,
  'r2: only root_b cancelled; r3 and s1: every task cancelled'
);
select is(pgflow_tests.queue_count('two_roots', 'a'), 5::bigint, 'two_roots archive: r1''s 2 + r2''s 1 + r3''s 2 messages');
select is(pgflow_tests.queue_count('solo', 'a'), 1::bigint, 'solo archive: s1''s message');

select * from finish();
rollback;
