begin;
select plan(3);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('approval');
select pgflow.add_step('approval', 'approved');
select pgflow.add_wait('approval', 'approved', 'approved', signal_match => '{"a": [1, 2]}',
  timeout => 60, on_timeout => 'skip', runs_handler => false);
create temp table first_row as select * from pgflow.step_waits;

-- TEST: the same definition again returns the stored row and changes nothing
select is(
  (select to_jsonb(w) from pgflow.add_wait('approval', 'approved', 'approved',
     signal_match => '{"a": [1, 2]}', timeout => 60, on_timeout => 'skip', runs_handler => false) as w),
  (select to_jsonb(f) from first_row as f),
  'repeating add_wait returns the stored row (same created_at)');
select is((select count(*)::int from pgflow.step_waits), 1, 'still one step_waits row');
select is((select to_jsonb(w) from pgflow.step_waits as w), (select to_jsonb(f) from first_row as f),
  'the stored row is unchanged');

select * from finish();
rollback;
