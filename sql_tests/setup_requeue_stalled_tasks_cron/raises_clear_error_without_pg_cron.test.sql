begin;
select plan(2);

-- SETUP: remove pg_cron inside this transaction (rolled back at the end).
drop extension pg_cron cascade;

-- TEST: the helper refuses with an error that names pg_cron
select throws_like($$select pgflow.setup_requeue_stalled_tasks_cron()$$, '%pg_cron%',
                   'without pg_cron the error names pg_cron');
select throws_like($$select pgflow.setup_requeue_stalled_tasks_cron('* * * * *')$$, '%pg_cron%',
                   'also with an explicit cron expression');

select * from finish();
rollback;
