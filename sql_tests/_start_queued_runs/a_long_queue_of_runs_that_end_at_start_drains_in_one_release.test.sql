begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: flow cond, at most 1 run per key; its only step runs when the input has go: true,
-- so a run without it completes as soon as it starts. A holder (go: true), then 300 runs
-- (go: false) queued behind it.
select pgflow.create_flow('cond', max_attempts => 1, concurrency_limit => 1);
select pgflow.add_step('cond', 'a', required_input_pattern => '{"go": true}');
select run_id as holder from pgflow.start_flow('cond', '{"go": true}', concurrency_key => 'ck') \gset
select count(*) from generate_series(1, 300) as i,
  lateral pgflow.start_flow('cond', jsonb_build_object('go', false, 'i', i), concurrency_key => 'ck') as s;
select results_eq(
  $$select status, count(*)::int from pgflow.runs group by status order by status$$,
  $$values ('queued'::text, 300), ('started', 1)$$,
  'setup: one holder, 300 queued runs'
);

-- TEST: the holder completes (its worker's report succeeds): each queued run in turn takes
-- the slot, completes at once and hands it on. (A release that starts the next run from
-- inside the previous one's completion nests one level per run and raises 54001 "stack
-- depth limit exceeded" for a queue this long, failing the holder's completion itself.)
select lives_ok(
  format($$select pgflow_tests.start_and_complete_task(%L, 'a')$$, :'holder'),
  'completing the holder succeeds with 300 runs queued behind it'
);
select results_eq(
  $$select status, count(*)::int from pgflow.runs group by status order by status$$,
  $$values ('completed'::text, 301)$$,
  'the holder and every queued run completed'
);

select * from finish();
rollback;
