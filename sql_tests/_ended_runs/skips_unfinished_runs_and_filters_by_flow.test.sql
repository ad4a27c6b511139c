begin;
select plan(4);

-- SETUP: flows stats_a and stats_b; runs inserted directly (label = input.label), t0 on
-- the 5-minute grid two hours ago.
select pgflow_tests.reset_db();
select pgflow.create_flow('stats_a');
select pgflow.create_flow('stats_b');
select date_bin('5 minutes', now() - interval '2 hours', timestamptz '1970-01-01 00:00:00+00') as t0 \gset
insert into pgflow.runs (flow_slug, status, input, started_at, completed_at, failed_at, paused_at, queued_at)
values
  ('stats_a', 'completed', '{"label": "a_done"}', :'t0'::timestamptz, :'t0'::timestamptz + interval '1 minute', null, null, null),
  ('stats_b', 'completed', '{"label": "b_done"}', :'t0'::timestamptz, :'t0'::timestamptz + interval '2 minutes', null, null, null),
  ('stats_a', 'started', '{"label": "running"}', :'t0'::timestamptz, null, null, null, null),
  -- failed, then retried (retry_run): status started again, failed_at kept
  ('stats_a', 'started', '{"label": "retried"}', :'t0'::timestamptz, null, :'t0'::timestamptz + interval '1 minute', null, null),
  ('stats_a', 'paused', '{"label": "paused"}', :'t0'::timestamptz, null, null, :'t0'::timestamptz + interval '1 minute', null),
  ('stats_a', 'queued', '{"label": "queued"}', :'t0'::timestamptz, null, null, null, :'t0'::timestamptz);

-- TEST: only ended runs (completed, failed, cancelled, expired); a run back to started after
-- a failure is not ended
select results_eq(
  format($$select r.input ->> 'label' from pgflow._ended_runs(%L, %L::timestamptz + interval '1 hour') as e
           join pgflow.runs as r using (run_id) order by 1$$, :'t0', :'t0'),
  $$values ('a_done'), ('b_done')$$,
  'started, retried, paused and queued runs are not listed');

-- TEST: only_flow limits the runs to one flow; NULL means every flow
select results_eq(
  format($$select flow_slug from pgflow._ended_runs(%L, %L::timestamptz + interval '1 hour', 'stats_a')$$, :'t0', :'t0'),
  $$values ('stats_a'::text)$$, 'only_flow stats_a');
select results_eq(
  format($$select flow_slug from pgflow._ended_runs(%L, %L::timestamptz + interval '1 hour', 'stats_b')$$, :'t0', :'t0'),
  $$values ('stats_b'::text)$$, 'only_flow stats_b');
select is_empty(
  format($$select * from pgflow._ended_runs(%L, %L::timestamptz + interval '1 hour', 'nope')$$, :'t0', :'t0'),
  'an unknown only_flow returns nothing');

select * from finish();
rollback;
