begin;
select plan(11);
select pgflow_tests.reset_db();

-- SETUP: a flow with concurrency_limit 1 (on_limit queue): holder h, then q1 and q2 queued
-- behind it on key k
select pgflow.create_flow('lim', concurrency_limit => 1);
select pgflow.add_step('lim', 'work');
select run_id as h from pgflow.start_flow('lim', '{}'::jsonb, concurrency_key => 'k') \gset
select run_id as q1 from pgflow.start_flow('lim', '{}'::jsonb, concurrency_key => 'k') \gset
select run_id as q2 from pgflow.start_flow('lim', '{}'::jsonb, concurrency_key => 'k') \gset
select is((select array_agg(status order by queue_seq nulls first) from pgflow.runs),
  array['started', 'queued', 'queued'], 'h holds the slot, q1 and q2 are queued');

-- TEST: expiring a queued run frees nothing (it held no slot): q2 stays queued
select pgflow_tests.pass_deadline(:'q1');
select is(pgflow._expire_runs(array[:'q1']::uuid[]), array[:'q1']::uuid[], 'queued q1 expires');
select is((select details ->> 'was' from pgflow.run_events where run_id = :'q1' and event = 'run:expired'), 'queued',
  'run:expired says it was queued');
select is((select status from pgflow.step_states where run_id = :'q1'), 'cancelled', 'its created step is cancelled');
select results_eq(format($$select status from pgflow.runs where run_id in (%L, %L) order by queue_seq nulls first$$, :'h', :'q2'),
  $$values ('started'::text), ('queued')$$, 'h still holds the slot, q2 still waits');

-- TEST: expiring the holder gives its slot to q2 (the expired q1 is passed over)
select pgflow_tests.pass_deadline(:'h');
select is(pgflow._expire_runs(array[:'h']::uuid[]), array[:'h']::uuid[], 'holder h expires');
select is((select status from pgflow.runs where run_id = :'q2'), 'started', 'q2 took the freed slot');
select is((select count(*) from pgflow.step_tasks where run_id = :'q2' and status = 'queued'), 1::bigint,
  'q2''s root task is queued');
select is((select status from pgflow.runs where run_id = :'q1'), 'expired', 'q1 stays expired');

-- TEST: a paused run holds its slot too: expiring it starts the next queued run
select run_id as ph from pgflow.start_flow('lim', '{}'::jsonb, concurrency_key => 'p') \gset
select run_id as pq from pgflow.start_flow('lim', '{}'::jsonb, concurrency_key => 'p') \gset
select pgflow.pause_run(:'ph', 'ops', 'hold');
select pgflow_tests.pass_deadline(:'ph');
select is(pgflow._expire_runs(array[:'ph']::uuid[]), array[:'ph']::uuid[], 'paused holder ph expires');
select is((select status from pgflow.runs where run_id = :'pq'), 'started', 'pq took the slot ph held while paused');

select * from finish();
rollback;
