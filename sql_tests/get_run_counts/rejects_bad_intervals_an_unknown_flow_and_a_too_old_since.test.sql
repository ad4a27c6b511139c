begin;
select plan(8);

-- SETUP: flow stats_a with a run completed 10 days ago; no stats written
select pgflow_tests.reset_db();
delete from pgflow.stats_buckets;
delete from pgflow.run_stats;
delete from pgflow.step_stats;
select pgflow.create_flow('stats_a');
insert into pgflow.runs (flow_slug, status, input, started_at, completed_at)
values ('stats_a', 'completed', '{}', now() - interval '10 days', now() - interval '10 days' + interval '1 second');

-- TEST: interval_seconds must be a positive multiple of 300 -> else 22023
select throws_ok(format($$select * from pgflow.get_run_counts('stats_a', now() - interval '1 day', %s)$$, v), '22023',
  format('get_run_counts: interval_seconds must be a multiple of 300 (got %s)', coalesce(v::text, '<NULL>')),
  format('interval_seconds %s: 22023', coalesce(v::text, 'NULL')))
from unnest(array[100, 301, 0, -300]) as v;
select throws_ok($$select * from pgflow.get_run_counts('stats_a', now() - interval '1 day', null)$$, '22023', null,
  'interval_seconds NULL: 22023');

-- TEST: an unknown flow -> P0002 no_data_found
select throws_ok($$select * from pgflow.get_run_counts('nope', now() - interval '1 day')$$, 'P0002',
  'get_run_counts: flow ''nope'' does not exist', 'unknown flow: P0002');

-- TEST: since more than 31 days ago -> 22023
select throws_ok($$select * from pgflow.get_run_counts('stats_a', now() - interval '32 days')$$, '22023', null,
  '32 days ago: 22023');

-- TEST: the rejected calls wrote nothing
select results_eq(
  $$select (select count(*) from pgflow.stats_buckets), (select count(*) from pgflow.run_stats),
           (select count(*) from pgflow.step_stats)$$,
  $$values (0::bigint, 0::bigint, 0::bigint)$$,
  'no stats_buckets, run_stats or step_stats row');

select * from finish();
rollback;
