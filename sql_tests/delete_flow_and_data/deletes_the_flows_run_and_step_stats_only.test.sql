begin;
select plan(5);

-- SETUP: flows stats_a and stats_b, each with a run started and completed within one
-- 5-minute bucket about 30 minutes ago (one run_stats row per flow whatever the minute the
-- test runs in); the stats of the last hour written (get_step_stats fills them)
select pgflow_tests.reset_db();
delete from pgflow.stats_buckets;
delete from pgflow.run_stats;
delete from pgflow.step_stats;
select pgflow.create_flow('stats_a');
select pgflow.add_step('stats_a', 's1');
select pgflow.create_flow('stats_b');
select pgflow.add_step('stats_b', 's1');
with r as (
  insert into pgflow.runs (flow_slug, status, input, started_at, completed_at)
  select f, 'completed', '{}', b.start + interval '1 minute', b.start + interval '2 minutes'
  from unnest(array['stats_a', 'stats_b']) as f,
    (select date_bin(interval '5 minutes', now() - interval '30 minutes', timestamptz 'epoch') as start) as b
  returning *)
insert into pgflow.step_states (flow_slug, run_id, step_slug, status, remaining_tasks, created_at, started_at, completed_at)
select r.flow_slug, r.run_id, 's1', 'completed', 0, r.started_at, r.started_at, r.completed_at from r;
select count(*) from pgflow.get_step_stats('stats_a', now() - interval '1 hour');
select results_eq(
  $$select flow_slug, count(*)::int from pgflow.run_stats group by flow_slug
    union all select 'steps ' || flow_slug, count(*)::int from pgflow.step_stats group by flow_slug order by 1$$,
  $$values ('stats_a'::text, 1), ('stats_b', 1), ('steps stats_a', 1), ('steps stats_b', 1)$$,
  'precondition: a run_stats and a step_stats row per flow');
select count(*) as n_buckets from pgflow.stats_buckets \gset

-- TEST: deleting stats_a deletes its run_stats and step_stats rows
select pgflow.delete_flow_and_data('stats_a');
select is((select count(*)::int from pgflow.run_stats where flow_slug = 'stats_a'), 0, 'stats_a run_stats gone');
select is((select count(*)::int from pgflow.step_stats where flow_slug = 'stats_a'), 0, 'stats_a step_stats gone');

-- TEST: the other flow's stats and the bucket list (shared by every flow) stay
select results_eq(
  $$select flow_slug, completed from pgflow.run_stats union all select flow_slug || '/' || step_slug, completed from pgflow.step_stats$$,
  $$values ('stats_b'::text, 1), ('stats_b/s1', 1)$$,
  'stats_b rows kept');
select is((select count(*) from pgflow.stats_buckets), :n_buckets::bigint, 'stats_buckets untouched');

select * from finish();
rollback;
