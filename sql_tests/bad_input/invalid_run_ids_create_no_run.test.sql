begin;
select plan(16);

-- An engine that accepts any text as an id can store an empty-string id that is never
-- recovered, while each recovery pass forks a duplicate execution. Here ids are uuids,
-- checked at the SQL boundary, and requeueing stalled tasks never creates a run.

-- SETUP: one real run whose only started task has stalled
select pgflow_tests.reset_db();
select pgflow.create_flow('stalls', timeout => 5);
select pgflow.add_step('stalls', 'only');
select run_id as run from pgflow.start_flow('stalls', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('stalls');
select pgflow_tests.backdate_started_tasks(interval '10 minutes');
select pgflow_tests.row_counts() as counts_before \gset

-- TEST: run ids that are not uuids are rejected with a message quoting them
select throws_ok($$ select * from pgflow.start_flow('stalls', '{}', '') $$, '22P02',
  'invalid input syntax for type uuid: ""', 'an empty run_id is rejected');
select throws_ok($$ select * from pgflow.start_flow('stalls', '{}', '   ') $$, '22P02',
  'invalid input syntax for type uuid: "   "', 'a blank run_id is rejected');
select throws_ok($$ select * from pgflow.start_flow('stalls', '{}', 'not-a-uuid') $$, '22P02',
  'invalid input syntax for type uuid: "not-a-uuid"', 'a word is rejected');
select throws_ok($$ select * from pgflow.start_flow('stalls', '{}', '00000000-0000-0000-0000-00000000000g') $$,
  '22P02', 'invalid input syntax for type uuid: "00000000-0000-0000-0000-00000000000g"',
  'a uuid with a non-hex digit is rejected');
select throws_ok($$ select * from pgflow.start_flow('stalls', '{}', 'x'' or ''1''=''1') $$, '22P02',
  'invalid input syntax for type uuid: "x'' or ''1''=''1"', 'an injection attempt is rejected');
select throws_ok($$ select pgflow.start_flow_with_states('stalls', '{}', '') $$, '22P02',
  'invalid input syntax for type uuid: ""', 'start_flow_with_states rejects an empty run_id');
select throws_ok($$ select pgflow.get_run_with_states('') $$, '22P02',
  'invalid input syntax for type uuid: ""', 'get_run_with_states rejects an empty run_id');
select throws_ok($$ select * from pgflow.complete_task('', 'only', 0, '{}') $$, '22P02',
  'invalid input syntax for type uuid: ""', 'complete_task rejects an empty run_id');
select throws_ok($$ select * from pgflow.fail_task('   ', 'only', 0, 'boom') $$, '22P02',
  'invalid input syntax for type uuid: "   "', 'fail_task rejects a blank run_id');
select is(pgflow_tests.row_counts(), :'counts_before'::jsonb, 'the rejected calls wrote nothing');

-- TEST: requeue_stalled_tasks requeues the stalled task and never creates runs, however
-- often it runs
select is(pgflow.requeue_stalled_tasks(), 1, 'the first call requeues the stalled task');
select is(pgflow.requeue_stalled_tasks(), 0, 'a second call finds nothing');
select is(pgflow.recover_stalled_tasks(), 0, 'its deprecated alias recover_stalled_tasks finds nothing either');
select is(pgflow.requeue_stalled_tasks(), 0, 'a third call finds nothing');
select is(pgflow_tests.row_counts(), :'counts_before'::jsonb,
  'still one run with one step state and one task: the calls create no run, state or task');
select is((select count(*)::int from pgflow.runs where run_id = :'run' and status = 'started'), 1,
  'the real run is still started');

select * from finish();
rollback;
