begin;
set local client_min_messages = warning;
select plan(3);

-- SETUP: a wait past its deadline and the cron job.
select pgflow_tests.reset_db();
select pgflow.create_flow('cr', max_attempts => 1);
select pgflow.add_step('cr', 'gate');
select pgflow.add_wait('cr', 'gate', 'go', timeout => 60, on_timeout => 'skip');
select pgflow.add_step('cr', 'work');
select run_id from pgflow.start_flow('cr', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
select pgflow.setup_tick_cron();
select command as job_command from cron.job where jobname = 'pgflow_tick' \gset

-- TEST: running the scheduled command (as pg_cron would) fires the wait
select lives_ok(:'job_command', 'the scheduled command runs without error');
select is((select outcome from pgflow.wait_states where run_id = :'run_id'), 'timed_out', 'the wait timed out');
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gate'), 'skipped',
  'its step was skipped (on_timeout skip)');

select * from finish();
rollback;
