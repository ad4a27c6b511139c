begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('batch');
select pgflow.add_step('batch', 'items');
select pgflow.add_step('batch', 'each', array['items'], step_type => 'map');

-- TEST: the step exists and is a single step
select throws_ok($$ select pgflow.add_timer('batch', 'later', seconds => 5) $$, '23503',
  'add_timer: step ''later'' of flow ''batch'' does not exist',
  'an unknown step raises foreign_key_violation');
select throws_ok($$ select pgflow.add_timer('nope', 'items', seconds => 5) $$, '23503', null,
  'an unknown flow raises foreign_key_violation');
select throws_ok($$ select pgflow.add_timer('batch', 'each', seconds => 5) $$, '23514',
  'add_timer: step ''each'' of flow ''batch'' is a map step; only a single step can wait',
  'a map step raises check_violation');

-- TEST: nothing was written
select is((select count(*)::int from pgflow.step_waits), 0, 'no step_waits row was written');

select * from finish();
rollback;
