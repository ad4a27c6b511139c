begin;
select plan(3);
select pgflow_tests.reset_db();

-- A step without handler completes with the signal's payload; when a map step depends on
-- it, that payload is the map's array. A task output that is not an array fails such a run
-- (complete_task), and complete_step refuses it; a signal's payload must not instead leave
-- the map step created with an unknown task count and the run started forever.

-- SETUP: gate (waits for "go", no handler) -> items (a map over gate's output).
select pgflow.create_flow('sm', max_attempts => 1);
select pgflow.add_step('sm', 'gate');
select pgflow.add_wait('sm', 'gate', 'go', runs_handler => false);
select pgflow.add_step('sm', 'items', array['gate'], step_type => 'map');
select run_id as ok_run from pgflow.start_flow('sm', '{}'::jsonb) \gset
select run_id as bad_run from pgflow.start_flow('sm', '{}'::jsonb) \gset

-- Sends a signal; returns the SQLSTATE it raised (NULL when it did not).
create function pg_temp.try_send(run uuid, payload jsonb) returns text language plpgsql as $$
begin
  perform pgflow.send_signal(run, 'go', payload);
  return null;
exception when others then
  return sqlstate;
end;
$$;
-- Whether the run is stuck: started, with nothing running and nothing able to start.
create function pg_temp.stuck(run uuid) returns boolean language sql as $$
  select r.status = 'started'
     and not exists (select 1 from pgflow.step_states as ss where ss.run_id = run
                     and (ss.status in ('started', 'waiting')
                          or (ss.status = 'created' and ss.remaining_deps = 0 and ss.initial_tasks is not null)))
  from pgflow.runs as r where r.run_id = run;
$$;

-- TEST: an array payload feeds the map
select is(pg_temp.try_send(:'ok_run', '[1, 2]'), null, 'an array payload is accepted');
select results_eq(
  format($$select status, initial_tasks from pgflow.step_states where run_id = %L and step_slug = 'items'$$, :'ok_run'),
  $$values ('started'::text, 2)$$, 'the map starts with two tasks');

-- TEST: an object payload is refused or fails the run, but never leaves it stuck
select coalesce(pg_temp.try_send(:'bad_run', '{"not": "an array"}'), 'nothing') as sqlstate_seen \gset
select ok(not pg_temp.stuck(:'bad_run'),
  format('an object payload (send_signal raised %s) does not leave the run started with the map unable to start',
         :'sqlstate_seen'));

select * from finish();
rollback;
