begin;
select plan(2);
select pgflow_tests.reset_db();

-- A step without handler feeds its output to its dependents: after a timeout with on_timeout
-- continue that is NULL, and a timer's is {"due_at", "fired_at"}. A map step depending on
-- it cannot know its task count; the run must then fail (as for a task output that is not
-- an array) or the definition be refused, never stay started with nothing able to run.

select pgflow.create_flow('cm', max_attempts => 1);
select pgflow.add_step('cm', 'gate');
select pgflow.add_wait('cm', 'gate', 'go', timeout => 60, on_timeout => 'continue', runs_handler => false);
select pgflow.add_step('cm', 'items', array['gate'], step_type => 'map');

-- Whether the run is stuck: started, with nothing running and nothing able to start.
create function pg_temp.stuck(run uuid) returns boolean language sql as $$
  select r.status = 'started'
     and not exists (select 1 from pgflow.step_states as ss where ss.run_id = run
                     and (ss.status in ('started', 'waiting')
                          or (ss.status = 'created' and ss.remaining_deps = 0 and ss.initial_tasks is not null)))
  from pgflow.runs as r where r.run_id = run;
$$;

-- TEST: a timed-out wait (continue, no handler) feeding a map
select run_id from pgflow.start_flow('cm', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
select count(*) from pgflow.tick();
select ok(not pg_temp.stuck(:'run_id'), 'the run is not left started with the map unable to start (continue)');

-- TEST: a timer feeding a map (refused at definition, or the run does not hang)
create function pg_temp.timer_run() returns uuid language plpgsql as $$
begin
  perform pgflow.create_flow('tm', max_attempts => 1);
  perform pgflow.add_step('tm', 'nap');
  perform pgflow.add_timer('tm', 'nap', seconds => 0);
  perform pgflow.add_step('tm', 'items', array['nap'], step_type => 'map');
  return (select r.run_id from pgflow.start_flow('tm', '{}'::jsonb) as r);
exception when others then
  return null;  -- the definition (or the start) was refused: nothing can hang
end;
$$;
select coalesce(pg_temp.timer_run()::text, '') as timer_run \gset
select ok(:'timer_run' = '' or not pg_temp.stuck(nullif(:'timer_run', '')::uuid),
  'a timer feeding a map is refused, or its run is not left hanging');

select * from finish();
rollback;
