begin;
select plan(11);
select pgflow_tests.reset_db();

-- SETUP: three runs of a flow whose root step waits for "go" 60 s (on_timeout skip); their
-- deadlines passed 3, 2 and 1 seconds ago.
select pgflow.create_flow('mr', max_attempts => 1);
select pgflow.add_step('mr', 'gate');
select pgflow.add_wait('mr', 'gate', 'go', timeout => 60, on_timeout => 'skip');
select pgflow.add_step('mr', 'work');
select run_id as r3 from pgflow.start_flow('mr', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('mr', '{}'::jsonb) \gset
select run_id as r1 from pgflow.start_flow('mr', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '3 seconds' where run_id = :'r3';
update pgflow.wait_states set deadline = now() - interval '2 seconds' where run_id = :'r2';
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'r1';

-- TEST: max_runs 2 fires the two earliest deadlines only
select results_eq($$select * from pgflow.tick(2)$$, $$values (true, 2, 0, 0, 0, 0)$$, 'tick(2) fires two waits');
select results_eq(
  format($$select run_id::text, outcome from pgflow.wait_states where run_id in (%L, %L, %L)
           order by deadline$$, :'r3', :'r2', :'r1'),
  format($$values (%L, 'timed_out'::text), (%L, 'timed_out'), (%L, null)$$, :'r3', :'r2', :'r1'),
  'the runs with the two earliest deadlines were fired, the third is left');

-- TEST: max_runs 1 then fires the one left
select results_eq($$select * from pgflow.tick(1)$$, $$values (true, 1, 0, 0, 0, 0)$$, 'tick(1) fires the last one');
select is((select count(*)::int from pgflow.wait_states where outcome = 'timed_out'), 3, 'all three timed out');

-- TEST: max_runs counts runs, not waits: one run with two due waits is fired whole
select pgflow.create_flow('mr2', max_attempts => 1);
select pgflow.add_step('mr2', 'a');
select pgflow.add_wait('mr2', 'a', 'go', timeout => 60, on_timeout => 'skip');
select pgflow.add_step('mr2', 'b');
select pgflow.add_wait('mr2', 'b', 'go', timeout => 60, on_timeout => 'skip');
select pgflow.add_step('mr2', 'work');
select run_id as both_run from pgflow.start_flow('mr2', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'both_run';
select results_eq($$select * from pgflow.tick(1)$$, $$values (true, 2, 0, 0, 0, 0)$$, 'tick(1) fires both waits of one run');

-- TEST: two runs, the first with two due waits (the earliest): tick(2) fires both runs (the
-- limit counts runs, so two waits of one run do not use it up)
select run_id as two_waits from pgflow.start_flow('mr2', '{}'::jsonb) \gset
select run_id as one_more from pgflow.start_flow('mr', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '9 seconds' where run_id = :'two_waits';
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'one_more';
select results_eq($$select * from pgflow.tick(2)$$, $$values (true, 3, 0, 0, 0, 0)$$, 'tick(2) fires the three waits of two runs');
select is((select count(*)::int from pgflow.wait_states where run_id in (:'two_waits', :'one_more') and outcome = 'timed_out'),
  3, 'both runs were fired');

-- TEST: max_runs < 1 raises 22023 and changes nothing
select pgflow.create_flow('mr3', max_attempts => 1);
select pgflow.add_step('mr3', 'gate');
select pgflow.add_wait('mr3', 'gate', 'go', timeout => 60, on_timeout => 'skip');
select run_id as left_run from pgflow.start_flow('mr3', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'left_run';
select throws_ok($$select * from pgflow.tick(0)$$, '22023', 'tick: max_runs must be >= 1 (got 0)', 'tick(0) raises 22023');
select throws_ok($$select * from pgflow.tick(-5)$$, '22023', 'tick: max_runs must be >= 1 (got -5)', 'tick(-5) raises 22023');
select throws_ok($$select * from pgflow.tick(null)$$, '22023', 'tick: max_runs must be >= 1 (got NULL)', 'tick(NULL) raises 22023');
select is((select resolved_at from pgflow.wait_states where run_id = :'left_run'), null, 'the due wait was not fired by them');

select * from finish();
rollback;
