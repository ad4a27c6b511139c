begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('batch');
select pgflow.add_step('batch', 'items');
select pgflow.add_step('batch', 'each', array['items'], step_type => 'map');

-- TEST: only single steps wait
select throws_ok($$ select pgflow.add_wait('batch', 'each', 'go') $$, '23514',
  'add_wait: step ''each'' of flow ''batch'' is a map step; only a single step can wait',
  'a map step raises check_violation');
select lives_ok($$ select pgflow.add_wait('batch', 'items', 'go') $$,
  'the single step before it can wait');

-- TEST: nothing was written for the map step
select is((select array_agg(step_slug) from pgflow.step_waits), array['items'],
  'only the single step waits');

select * from finish();
rollback;
