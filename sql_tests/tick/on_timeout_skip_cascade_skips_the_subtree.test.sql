begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: gate (waits 60 s, on_timeout skip-cascade) -> child -> grandchild; other (root) -> last;
-- grandchild -> last too.
select pgflow.create_flow('tc', max_attempts => 1);
select pgflow.add_step('tc', 'gate');
select pgflow.add_wait('tc', 'gate', 'approved', timeout => 60, on_timeout => 'skip-cascade');
select pgflow.add_step('tc', 'child', array['gate']);
select pgflow.add_step('tc', 'grandchild', array['child']);
select pgflow.add_step('tc', 'other');
select run_id from pgflow.start_flow('tc', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';

-- TEST: the step and its whole subtree are skipped; the independent step goes on
select results_eq($$select * from pgflow.tick()$$, $$values (true, 1, 0, 0, 0, 0)$$, 'tick fires the wait');
select results_eq(
  format($$select step_slug, status, skip_reason from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('child'::text, 'skipped'::text, 'dependency_skipped'::text),
           ('gate', 'skipped', 'timed_out'), ('grandchild', 'skipped', 'dependency_skipped'),
           ('other', 'started', null)$$,
  'gate skipped (timed_out), child and grandchild skipped (dependency_skipped), other started');
select is((select remaining_steps from pgflow.runs where run_id = :'run_id'), 1, 'one step left');
select pgflow_tests.start_and_complete_task(:'run_id', 'other', 0, '"o"'::jsonb);
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"other": "o"}'::jsonb)$$, 'the run completes without the subtree');

select * from finish();
rollback;
