begin;
select plan(5);

-- SETUP: flow stats_a with a run completed 10 days ago; no stats written
select pgflow_tests.reset_db();
delete from pgflow.stats_buckets;
delete from pgflow.run_stats;
delete from pgflow.step_stats;
select pgflow.create_flow('stats_a');
select pgflow.add_step('stats_a', 's1');
insert into pgflow.runs (flow_slug, status, input, started_at, completed_at)
values ('stats_a', 'completed', '{}', now() - interval '10 days', now() - interval '10 days' + interval '1 second');

-- TEST: an unknown flow -> P0002 no_data_found
select throws_ok($$select * from pgflow.get_step_stats('nope', now() - interval '1 day')$$, 'P0002',
  'get_step_stats: flow ''nope'' does not exist', 'unknown flow: P0002 with the flow in the message');

-- TEST: since more than 31 days ago, or NULL -> 22023 invalid_parameter_value
select throws_ok($$select * from pgflow.get_step_stats('stats_a', now() - interval '32 days')$$, '22023', null,
  '32 days ago: 22023');
select throws_ok($$select * from pgflow.get_step_stats('stats_a', now() - interval '31 days 1 second')$$, '22023', null,
  '31 days and 1 second ago: 22023');
select throws_ok($$select * from pgflow.get_step_stats('stats_a', null)$$, '22023', null, 'NULL since: 22023');

-- TEST: the rejected calls wrote nothing (the unknown flow is refused before any filling)
select results_eq(
  $$select (select count(*) from pgflow.stats_buckets), (select count(*) from pgflow.run_stats),
           (select count(*) from pgflow.step_stats)$$,
  $$values (0::bigint, 0::bigint, 0::bigint)$$,
  'no stats_buckets, run_stats or step_stats row');

select * from finish();
rollback;
