begin;
select plan(1);

-- TEST: a function that runs with its owner's rights is a reviewed decision
-- (extension/sql/900_setup_security.sql, README "Security"); adding one means adding it here.
select is(
  array(select pgflow_tests.signature(p.oid) from pg_proc as p
        where p.pronamespace = 'pgflow'::regnamespace and p.prosecdef
        order by 1),
  array[
    'cancel_run(uuid,text,text,text)',
    'complete_step(uuid,text,jsonb,text,text,text)',
    'complete_task(uuid,text,integer,jsonb,integer)',
    'complete_tasks(uuid[],text[],integer[],jsonb[],integer[])',
    'deprecate_worker(uuid)',
    'enable_flow_notify(text,integer)',
    'ensure_flow_compiled(text,jsonb,boolean)',
    'fail_task(uuid,text,integer,text,integer)',
    'fail_tasks(uuid[],text[],integer[],text[],integer[],boolean[],text[])',
    'get_message_due_in(text,bigint[])',
    'get_queue_stats()',
    'get_run_counts(text,timestamp with time zone,integer)',
    'get_run_with_states(uuid)',
    'get_step_stats(text,timestamp with time zone)',
    'mark_worker_stopped(uuid)',
    'pause_run(uuid,text,text,text)',
    'prune_data_older_than(interval)',
    'read_and_start_tasks(text,uuid,integer,integer,text[])',
    'read_tasks(text,integer,integer)',
    'recover_stalled_tasks()',
    'register_worker(uuid,text,text)',
    'requeue_stalled_tasks()',
    'rerun_flow(uuid,text,text,text)',
    'resume_run(uuid,text,text,text)',
    'retry_run(uuid,text,text,text)',
    'schedule_flow(text,text,jsonb,text)',
    'send_signal(uuid,text,jsonb,text,text,text)',
    'setup_requeue_stalled_tasks_cron(text)',
    'setup_tick_cron(text)',
    'skip_step(uuid,text,text,text,text)',
    'start_flow(text,jsonb,uuid,text,text,timestamp with time zone)',
    'start_flow_with_states(text,jsonb,uuid)',
    'start_tasks(text,bigint[],uuid)',
    'sync_flow_options(text,jsonb)',
    'sync_flow_schedule(text,text,jsonb)',
    'tick(integer)',
    'track_worker_function(text)',
    'unschedule_flow(text,text)',
    'worker_heartbeat(uuid)'
  ],
  'exactly the audited functions are SECURITY DEFINER');

select * from finish();
rollback;
