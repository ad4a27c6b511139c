begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: known previous values
select set_config('pgflow.actor', 'before', true), set_config('pgflow.reason', 'old reason', true);

-- TEST: _set_actor returns the previous {actor, reason} and sets the new ones
select is(pgflow._set_actor('alice', 'why not'), array['before', 'old reason'], 'returns {before, old reason}');
select is(array[current_setting('pgflow.actor', true), current_setting('pgflow.reason', true)],
  array['alice', 'why not'], 'pgflow.actor = alice, pgflow.reason = why not');

-- TEST: NULL unsets (blank), and the previous values come back
select is(pgflow._set_actor(null, null), array['alice', 'why not'], 'returns {alice, why not}');
select is(array[current_setting('pgflow.actor', true), current_setting('pgflow.reason', true)],
  array['', ''], 'both blank');

-- TEST: setting back what it returned restores the caller's values (the verbs' pattern)
select pgflow._set_actor('bob', null) as prev \gset
select pgflow._set_actor((:'prev'::text[])[1], (:'prev'::text[])[2]);
select is(array[current_setting('pgflow.actor', true), current_setting('pgflow.reason', true)],
  array['', ''], 'restored to blank');

-- TEST: the triggers use what it set: a new run by carol with her reason
select pgflow_tests.setup_flow('sequential');
select pgflow._set_actor('carol', 'load test');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select results_eq(
  format($$select actor, reason from pgflow.run_events where run_id = %L and event = 'run:started'$$, :'run'),
  $$values ('carol'::text, 'load test'::text)$$, 'run:started by carol, reason load test');

select * from finish();
rollback;
