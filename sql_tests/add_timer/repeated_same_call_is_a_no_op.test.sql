begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('reminders');
select pgflow.add_step('reminders', 'cool_off');
select pgflow.add_step('reminders', 'remind');
select pgflow.add_timer('reminders', 'cool_off', seconds => 60);
select pgflow.add_timer('reminders', 'remind', until_path => 'input.at');
create temp table first_rows as select * from pgflow.step_waits;

-- TEST: the same timers again return the stored rows and change nothing
select is(
  (select sleep_seconds from pgflow.add_timer('reminders', 'cool_off', seconds => 60)), 60,
  'repeating a seconds timer returns the stored row');
select is(
  (select sleep_until from pgflow.add_timer('reminders', 'remind', until_path => 'input.at')), 'input.at',
  'repeating an until timer returns the stored row');
select is((select count(*)::int from pgflow.step_waits), 2, 'still two step_waits rows');
select set_eq($$ select to_jsonb(w) from pgflow.step_waits as w $$, $$ select to_jsonb(f) from first_rows as f $$,
  'the stored rows are unchanged');

select * from finish();
rollback;
