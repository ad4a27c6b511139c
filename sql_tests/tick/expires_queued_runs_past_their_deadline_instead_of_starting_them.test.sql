begin;
select plan(12);
select pgflow_tests.reset_db();

-- SETUP: concurrency_limit 1 on key k: h holds the slot (deadline in an hour); q1 and q2 are
-- queued behind it; q1's deadline passes
select pgflow.create_flow('ql', concurrency_limit => 1);
select pgflow.add_step('ql', 'work');
select run_id as h from pgflow.start_flow('ql', '{}'::jsonb, concurrency_key => 'k', deadline => now() + interval '1 hour') \gset
select run_id as q1 from pgflow.start_flow('ql', '{}'::jsonb, concurrency_key => 'k', deadline => now() + interval '1 hour') \gset
select run_id as q2 from pgflow.start_flow('ql', '{}'::jsonb, concurrency_key => 'k', deadline => now() + interval '1 hour') \gset
select pgflow_tests.pass_deadline(:'q1');
select deadline as q1_deadline from pgflow.runs where run_id = :'q1' \gset

-- TEST: the tick expires queued q1 (it held no slot, so nothing starts)
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 1, 0, 0)$$, 'tick: expired_runs 1, started_queued_runs 0');
select results_eq(format($$select status, expired_at, started_at <= now() from pgflow.runs where run_id = %L$$, :'q1'),
  $$values ('expired'::text, now(), true)$$, 'q1 is expired');
select is(pgflow_tests.expired_events(:'q1'),
  array[jsonb_build_object('deadline', :'q1_deadline'::timestamptz, 'was', 'queued')], 'run:expired says it was queued');
select is((select count(*) from pgflow.run_events where run_id = :'q1' and event = 'run:started'), 0::bigint,
  'q1 never started');
select results_eq(format($$select status from pgflow.step_states where run_id = %L$$, :'q1'),
  $$values ('cancelled'::text)$$, 'its created step is cancelled; it had no task');
select results_eq(format($$select run_id::text, status from pgflow.runs where run_id in (%L, %L) order by queue_seq nulls first$$, :'h', :'q2'),
  format($$values (%L, 'started'::text), (%L, 'queued')$$, :'h', :'q2'), 'h keeps its slot, q2 keeps waiting');

-- TEST: a free slot (limit raised) goes to q2, not to a queued run past its deadline (q3):
-- the tick starts q2 and expires q3
select run_id as q3 from pgflow.start_flow('ql', '{}'::jsonb, concurrency_key => 'k', deadline => now() + interval '1 hour') \gset
select pgflow_tests.pass_deadline(:'q3');
update pgflow.flows set opt_concurrency_limit = 5 where flow_slug = 'ql';
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 1, 1, 0)$$, 'tick: started_queued_runs 1, expired_runs 1');
select results_eq(format($$select run_id::text, status from pgflow.runs where run_id in (%L, %L) order by queue_seq$$, :'q2', :'q3'),
  format($$values (%L, 'started'::text), (%L, 'expired')$$, :'q2', :'q3'), 'q2 started, q3 expired');
select is((select count(*) from pgflow.step_tasks where run_id = :'q3'), 0::bigint, 'q3 never got a task');

-- TEST: the holder expiring with a queued run past its deadline behind it: the slot passes
-- over that run (expired by the same tick) to the next one
update pgflow.flows set opt_concurrency_limit = 1 where flow_slug = 'ql';
select run_id as h2 from pgflow.start_flow('ql', '{}'::jsonb, concurrency_key => 'k2', deadline => now() + interval '1 hour') \gset
select run_id as q4 from pgflow.start_flow('ql', '{}'::jsonb, concurrency_key => 'k2', deadline => now() + interval '1 hour') \gset
select run_id as q5 from pgflow.start_flow('ql', '{}'::jsonb, concurrency_key => 'k2', deadline => now() + interval '1 hour') \gset
select pgflow_tests.pass_deadline(:'h2');
select pgflow_tests.pass_deadline(:'q4');
select results_eq($$select ran, expired_runs from pgflow.tick()$$, $$values (true, 2)$$, 'tick: expired_runs 2 (h2, q4)');
select results_eq(format($$select run_id::text, status from pgflow.runs where run_id in (%L, %L, %L) order by queue_seq nulls first$$,
                         :'h2', :'q4', :'q5'),
  format($$values (%L, 'expired'::text), (%L, 'expired'), (%L, 'started')$$, :'h2', :'q4', :'q5'),
  'h2 and q4 expired, q5 took the slot');
select is((select count(*) from pgflow.run_events where run_id = :'q4' and event = 'run:started'), 0::bigint,
  'q4 was never started');

select * from finish();
rollback;
