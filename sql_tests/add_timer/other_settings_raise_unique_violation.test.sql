begin;
select plan(5);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('reminders');
select pgflow.add_step('reminders', 'cool_off');
select pgflow.add_timer('reminders', 'cool_off', seconds => 60);
create temp table first_row as select * from pgflow.step_waits;

-- TEST: another time, or another kind of wait, for the same step is refused
select throws_ok($$ select pgflow.add_timer('reminders', 'cool_off', seconds => 61) $$, '23505',
  'Step ''cool_off'' of flow ''reminders'' already waits, with other settings',
  'other seconds raise unique_violation');
select throws_ok($$ select pgflow.add_timer('reminders', 'cool_off', until_path => 'input.at') $$, '23505',
  null, 'an until path instead of seconds raises unique_violation');
select throws_ok($$ select pgflow.add_wait('reminders', 'cool_off', 'go', runs_handler => false) $$, '23505',
  null, 'a signal wait on the timer step raises unique_violation');

-- TEST: nothing changed
select is((select count(*)::int from pgflow.step_waits), 1, 'still one step_waits row');
select is((select to_jsonb(w) from pgflow.step_waits as w), (select to_jsonb(f) from first_row as f),
  'the stored timer is unchanged');

select * from finish();
rollback;
