begin;
select plan(1);

-- TEST: every function that runs dynamic SQL (EXECUTE) has been audited: identifiers come
-- from pgmq.format_table_name (which rejects $ ; -- ') through format('%I'), literals through
-- format('%L'), values through EXECUTE ... USING; never concatenated. The audit, per function:
--   _broadcast                        fixed text; payload, event, topic passed with USING
--   set_vt_batch                      queue table: pgmq.format_table_name(queue_name) + %I; ids USING
--   _setup_maintenance_cron           fixed text; job name, schedule, command passed with USING
--                                     (setup_requeue_stalled_tasks_cron, setup_tick_cron)
--   prune_data_older_than             queue tables of existing flows (valid slugs) via
--                                     format_table_name + %I; cutoff USING
--   schedule_flow                     fixed text; the job command quotes the validated schedule
--                                     name with %L; the rest passed with USING
--   unschedule_flow                   fixed text; job name passed with USING
--   setup_security                    regprocedure text of catalog rows (quoted by the cast),
--                                     role names from a constant list through %I
--   _grant_queue_to_upstream_worker   queue table: pgmq.format_table_name(flow_slug) + %I, of
--                                     a queue that exists; role name fixed
--   _grant_upstream_worker            no dynamic SQL: matched by GRANT EXECUTE ON FUNCTION
--   _grant_worker_role, _grant_client_role, _grant_operator_role
--                                     no dynamic SQL: matched by GRANT EXECUTE ON FUNCTION
--   _align_owners                     regprocedure / regclass / regtype text of catalog rows
--                                     (quoted by the casts), the owner through %I
--   _release_throttled_messages       queue table of a flow with a held message (a valid slug)
--                                     via format_table_name + %I; message ids USING
--   _resend_parked_tasks              archive and queue tables of the run's flow (a valid slug
--                                     from pgflow.runs): format_table_name + %I; run id USING
--   get_message_due_in                queue table of a flow whose queue exists in pgmq.meta via
--                                     format_table_name + %I; ids USING
--   get_queue_stats                   queue tables of flows whose queue exists in pgmq.meta
--                                     (valid slugs) via format_table_name + %I; slug USING
--   advance_clock                     queue tables of flows whose queue exists in pgmq.meta
--                                     (valid slugs) via format_table_name + %I; interval USING
-- A new EXECUTE needs the same review, then an entry here.
select is(
  array(select pgflow_tests.signature(p.oid) from pg_proc as p
        where p.pronamespace = 'pgflow'::regnamespace and p.prosrc ~* '\mexecute\M'
        order by 1),
  array[
    '_align_owners()',
    '_broadcast(uuid,text,jsonb)',
    '_grant_client_role()',
    '_grant_operator_role()',
    '_grant_queue_to_upstream_worker(text)',
    '_grant_upstream_worker()',
    '_grant_worker_role()',
    '_release_throttled_messages(text,text[])',
    '_resend_parked_tasks(uuid)',
    '_setup_maintenance_cron(text,text,text)',
    'advance_clock(double precision)',
    'get_message_due_in(text,bigint[])',
    'get_queue_stats()',
    'prune_data_older_than(interval)',
    'schedule_flow(text,text,jsonb,text)',
    'set_vt_batch(text,bigint[],integer[])',
    'setup_security()',
    'unschedule_flow(text,text)'
  ],
  'exactly the audited functions run dynamic SQL');

select * from finish();
rollback;
