begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id as run_a from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as run_b from pgflow.start_flow('sequential', '{}'::jsonb, null) \gset

-- TEST: a random run_id is generated when omitted or NULL
select isnt(:'run_a'::uuid, null, 'a run_id is generated when the argument is omitted');
select isnt(:'run_a'::uuid, :'run_b'::uuid, 'each run gets its own generated run_id (also for an explicit NULL)');

select * from finish();
rollback;
