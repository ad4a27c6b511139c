begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: diamond (root -> left, right -> last); root completed, left started, right queued
select pgflow_tests.setup_flow('diamond');
select run_id from pgflow.start_flow('diamond', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_complete_task(:'run_id', 'root');
select count(*) from pgflow_tests.start_task(:'run_id', 'left');

-- TEST: root (completed) is left alone; left, right and last are skipped, in step_index order
select is(
  pgflow._skip_steps(:'run_id', array['last', 'root', 'right', 'left'], 'dependency_skipped'),
  array['left', 'right', 'last'],
  'returns the skipped slugs in step_index order'
);
select results_eq(
  format($$select step_slug, status, skip_reason, remaining_tasks from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'skipped'::text, 'dependency_skipped'::text, null::int),
           ('left', 'skipped', 'dependency_skipped', null),
           ('right', 'skipped', 'dependency_skipped', null),
           ('root', 'completed', null, 0)$$,
  'created and started steps are skipped with the reason'
);
select is(pgflow_tests.queue_count('diamond'), 0::bigint, 'the started and queued tasks'' messages left the queue');
select is(pgflow_tests.queue_count('diamond', 'a'), 3::bigint, 'they are archived with root''s');

-- TEST: a repeated call skips nothing
select is(pgflow._skip_steps(:'run_id', array['left', 'right'], 'condition_unmet'), '{}'::text[],
  'a second call skips nothing');

select * from finish();
rollback;
