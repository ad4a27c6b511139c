begin;
select plan(6);
-- Two more sessions through dblink (this one stays in its transaction and only looks): the
-- race needs committed rows, so the setup and both fillers commit, and the end deletes them.
create extension if not exists dblink;
select dblink_connect('fill_a', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=fill_a',
  current_setting('port'), current_database(), current_user));
select dblink_connect('fill_b', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=fill_b',
  current_setting('port'), current_database(), current_user));
-- (a session that would wait on the other's lock fails the test after 20 s, never hangs)
select dblink_exec('fill_a', 'set statement_timeout = 20000');
select dblink_exec('fill_b', 'set statement_timeout = 20000');

-- SETUP (committed): flow race15 (one step s1) with a run completed 30 minutes ago; no stats
-- written yet
select dblink_exec('fill_a', $o$do $x$ begin
  perform pgflow.create_flow('race15');
  perform pgflow.add_step('race15', 's1');
end $x$ $o$);
select dblink_exec('fill_a', $$with r as (
    insert into pgflow.runs (flow_slug, status, input, started_at, completed_at)
    values ('race15', 'completed', '{}', now() - interval '31 minutes', now() - interval '30 minutes')
    returning *)
  insert into pgflow.step_states (flow_slug, run_id, step_slug, status, remaining_tasks, created_at, started_at, completed_at)
  select r.flow_slug, r.run_id, 's1', 'completed', 0, r.started_at, r.started_at, r.completed_at from r$$);
select is((select count(*)::int from pgflow.stats_buckets), 0, 'precondition: no bucket written');

-- TEST: filler A (open transaction) writes the closed buckets of the last hour; filler B,
-- started meanwhile, waits for A's lock
select dblink_exec('fill_a', 'begin');
select n as a_written, ce as a_closed_end, closed as a_closed
from dblink('fill_a', $$select pgflow._fill_stats_buckets(now() - interval '1 hour'), pgflow._stats_closed_end(),
                               (extract(epoch from pgflow._stats_closed_end() - date_bin('5 minutes',
                                  now() - interval '1 hour', timestamptz '1970-01-01 00:00:00+00')) / 300)::int$$)
  as t (n int, ce timestamptz, closed int) \gset
select dblink_send_query('fill_b', $$select pgflow._fill_stats_buckets(now() - interval '1 hour')$$);
do $$
begin
  -- filler B is blocked on the advisory lock held by A (a session state, not time)
  for i in 1 .. 400 loop
    exit when exists (select 1 from pg_stat_activity
                      where application_name = 'fill_b' and wait_event_type = 'Lock' and wait_event = 'advisory');
    perform pg_sleep(0.05);
  end loop;
end
$$;
select ok(exists (select 1 from pg_stat_activity
                  where application_name = 'fill_b' and wait_event_type = 'Lock' and wait_event = 'advisory'),
  'filler B waits for the advisory lock filler A holds');

-- TEST: once A commits, B finds A's buckets written and writes none of them: it returns
-- only the buckets that closed after A's call (0 unless a 5-minute boundary passed between
-- the two calls)
select dblink_exec('fill_a', 'commit');
select n as b_written from dblink_get_result('fill_b') as t (n int) \gset
select dblink_get_result('fill_b');
select is(:a_written, :a_closed, 'filler A wrote every closed bucket of the last hour');
select is(:b_written, (select count(*)::int from pgflow.stats_buckets where bucket_start >= :'a_closed_end'),
  'filler B wrote only buckets closed after A''s call');
select is((select count(*)::int from pgflow.stats_buckets where bucket_start < :'a_closed_end'), :a_written,
  'each bucket before A''s closed end listed once');
select is((select sum(completed)::int from pgflow.run_stats where flow_slug = 'race15'), 1,
  'the run is counted once');

-- CLEANUP: the committed rows go (the stats of every flow and the bucket list)
select dblink_exec('fill_a', $o$do $x$ begin
  perform pgflow.delete_flow_and_data('race15');
  delete from pgflow.run_stats;
  delete from pgflow.step_stats;
  delete from pgflow.stats_buckets;
end $x$ $o$);
select dblink_disconnect('fill_a');
select dblink_disconnect('fill_b');

select * from finish();
rollback;
